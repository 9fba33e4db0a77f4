"""What a failure means, in terms the user can act on (the causes of `messages.JobResult`).

Used by the runner on the text of exceptions that Allo raised, and by the job manager on the
last lines a process printed before a signal killed it (an LLVM abort): the same words, one
table. Never on what a design printed while it ran normally: it may print anything.
"""

from __future__ import annotations

import re

# Messages of Allo/LLVM bugs, not of user errors: the useful answer is a reproducer.
LIBRARY_BUG_PATTERNS = (
    "cannot be converted to LLVM IR: missing LLVMTranslationDialectInterface",
    "Assertion 'value' failed",
    "Failure while creating the ExecutionEngine",
    "'ASTContext' object has no attribute 'global_op_cache'",
    "LLVM ERROR: Option 'fast' already exists!",
)

_GLIBC = re.compile(r"version [`'](GLIBC(?:XX)?_[\d.]+)' not found")


def library_bug(text: str) -> str | None:
    """The known compiler-bug message found in `text`, if any."""
    return next((p for p in LIBRARY_BUG_PATTERNS if p in text), None)


def environment_problem(text: str) -> str | None:
    """A message saying what to set or install, when `text` shows a broken environment."""
    if "LLVM_BUILD_DIR is not set" in text:
        return (
            "LLVM_BUILD_DIR is not set: the Allo simulator loads its runtime libraries from "
            "$LLVM_BUILD_DIR/lib. Set alloDataflow.llvmBuildDir (or export LLVM_BUILD_DIR) to your "
            "LLVM build."
        )
    glibc = _GLIBC.search(text)
    if glibc:
        return (
            f"{glibc.group(1)} not found: this Allo/LLVM build was compiled against a newer C library "
            "than this machine has. Rebuild LLVM and Allo here, or run on the machine they were built for."
        )
    return None


# Third-party packages Allo's designs, examples and optional backends import: a design that
# imports one the environment lacks needs it installed, there is nothing in the design to fix
# (a module of the user's own that is missing stays the user's error).
THIRD_PARTY = frozenset(
    "numpy torch torchvision ml_dtypes onnx onnxruntime transformers tvm scipy sympy pandas numba jax "
    "tensorflow matplotlib networkx yaml tabulate psutil pytest hypothesis cupy einops pynq".split()
)


def missing_package(module: str | None) -> str | None:
    """The message for a design's `import` of a third-party package this Python lacks, or None."""
    top = (module or "").split(".")[0]
    if top not in THIRD_PARTY:
        return None
    return (
        f"the design imports '{module}', which is not installed in this Python: install '{top}' in the "
        "interpreter alloDataflow.python names (or remove the import)"
    )


ALLO_NOT_IMPORTABLE = (
    "allo is not importable in the configured Python: set alloDataflow.python to the "
    "interpreter of your Allo environment (e.g. the conda env's bin/python)."
)


def allo_error_line(text: str) -> str | None:
    """The message Allo printed before `sys.exit(1)`: the last non-empty line that is not a
    traceback line."""
    for line in reversed(text.strip().splitlines()):
        line = line.strip()
        if line and not line.startswith(("Traceback", "File ", "^", "~")):
            return line
    return None
