"""STAND-IN for `allo.dataflow`, for tests only (tests/standin/README.md). Computes nothing.

Reproduces how real Allo behaves toward the process running it: its build-error exits, its
aborts and crashes, its hang, its environment assertion, and the argument order of the top
function that `customize()` prints (declaration order, or kernel order with
`ALLO_STANDIN_ORDER=legacy`).
"""

import ast
import atexit
import inspect
import os
import signal
import sys
import textwrap
import time

from allo.memory import Layout  # noqa: F401  (`df.Layout.Shard`)

DEFAULT_BUILD_ERROR = "Invalid @df.kernel decorator on function 'producer': missing required 'mapping' parameter."


_current_design = {}


def _behaviour() -> str:
    """`ALLO_STANDIN = "hang"` in the design's module wins over the environment variable, so one
    test server can run designs that misbehave in different ways."""
    return _current_design.get("ALLO_STANDIN") or os.environ.get("ALLO_STANDIN", "ok")


def region():
    def decorate(fn):
        fn.__allo_region__ = True
        return fn

    return decorate


def kernel(mapping=None, args=None):
    def decorate(fn):
        return fn

    return decorate


def get_pid():
    raise RuntimeError("stand-in allo: kernel bodies are never executed as Python")


def _misbehave_while_building() -> None:
    behaviour = _behaviour()
    if behaviour == "build_error":
        print(os.environ.get("ALLO_STANDIN_MESSAGE", DEFAULT_BUILD_ERROR))
        sys.exit(1)
    if behaviour == "option_fast":
        os.write(2, b"LLVM ERROR: Option 'fast' already exists!\n")
        os.abort()
    if behaviour == "compiler_bug":
        raise RuntimeError(
            "cannot be converted to LLVM IR: missing LLVMTranslationDialectInterface registration "
            "for dialect for op: func.func"
        )


class _Module:
    def __init__(self, fn) -> None:
        self.fn = fn
        self.params = list(inspect.signature(fn).parameters)

    def __call__(self, *arrays):
        behaviour = _behaviour()
        if behaviour == "glibc":
            raise OSError(
                "/opt/llvm/lib/libmlir_c_runner_utils.so: /lib/x86_64-linux-gnu/libc.so.6: "
                "version `GLIBC_2.34' not found (required by /opt/llvm/lib/libmlir_c_runner_utils.so)"
            )
        if behaviour == "segfault":
            os.kill(os.getpid(), signal.SIGSEGV)
        if behaviour == "hang":
            while True:  # each PE spins on a stream nobody serves
                time.sleep(0.05)
        if len(arrays) != len(self.params):
            raise TypeError(f"{self.fn.__name__}() takes {len(self.params)} arrays, got {len(arrays)}")
        if behaviour == "segfault_at_exit":
            atexit.register(os.kill, os.getpid(), signal.SIGSEGV)


def build(fn, target="vitis_hls", mode=None, project=None, configs=None, wrap_io=True):
    _current_design.update(fn.__globals__)
    if target == "simulator":
        assert os.environ.get("LLVM_BUILD_DIR"), "LLVM_BUILD_DIR is not set"
    _misbehave_while_building()
    if target == "vitis_hls":
        _write_project(fn, project or f"{fn.__name__}.prj", mode or "csim")
    return _Module(fn)


def _write_project(fn, project: str, mode: str) -> None:
    """The project directory Allo writes for Vitis HLS: an HLS C++ file and its run.tcl."""
    os.makedirs(project, exist_ok=True)
    with open(os.path.join(project, "kernel.cpp"), "w") as f:
        f.write(f"// stand-in: HLS C++ of {fn.__name__}\nvoid {fn.__name__}({_hls_arguments(fn)}) {{}}\n")
        if _current_design.get("VITIS_STANDIN"):  # the design's choice of the stand-in Vitis' behaviour
            f.write(f"// VITIS_STANDIN: {_current_design['VITIS_STANDIN']}\n")
            # where the stand-in Vitis writes its pid (vitis_pid.txt): a test sees it run and end
            f.write(f"// VITIS_PID_DIR: {os.path.dirname(os.path.abspath(_current_design['__file__']))}\n")
    with open(os.path.join(project, "run.tcl"), "w") as f:
        f.write(
            "open_project out.prj\n"
            f"set_top {fn.__name__}\n"
            "add_files kernel.cpp\n"
            "open_solution solution1\n"
            "set_part {xcu280-fsvh2892-2L-e}\n"
            "create_clock -period 3.33 -name default\n"
            + ("csynth_design\n" if mode == "csyn" else "csim_design\n")
            + "exit\n"
        )


def _hls_arguments(fn) -> str:
    """The top function's arrays as Allo's HLS C++ declares them (`ap_int<32> A[8][8]`): the
    stand-in Vitis sizes its memories from them."""
    out = []
    for name, p in inspect.signature(fn).parameters.items():
        shape = getattr(p.annotation, "shape", None)
        elem = getattr(p.annotation, "elem", p.annotation)
        ctype = _hls_type(getattr(elem, "mlir", "i32"), getattr(elem, "itype", "s"))
        out.append(f"{ctype} {name}" + "".join(f"[{d}]" for d in shape or (1,)))
    return ", ".join(out)


def _hls_type(mlir: str, itype: str) -> str:
    if mlir in ("f16", "f32", "f64"):
        return {"f16": "half", "f32": "float", "f64": "double"}[mlir]
    if mlir.startswith("!allo."):  # Fixed<W, F> / UFixed<W, F>
        return ("ap_ufixed" if "UFixed" in mlir else "ap_fixed") + mlir[mlir.index("<") :]
    bits = mlir[1:] if mlir[:1] == "i" and mlir[1:].isdigit() else {"bf16": "16", "index": "64"}.get(mlir, "32")
    return f"ap_{'u' if itype == 'u' else ''}int<{bits}>"


class _Schedule:
    def __init__(self, fn) -> None:
        self.module = _mlir(fn)


def customize(fn):
    _current_design.update(fn.__globals__)
    _misbehave_while_building()
    return _Schedule(fn)


def _mlir(fn) -> str:
    """The top function as Allo prints it (bodies omitted), arguments in this build's order."""
    annotations = {name: p.annotation for name, p in inspect.signature(fn).parameters.items()}
    order = list(annotations)
    if (fn.__globals__.get("ALLO_STANDIN_ORDER") or os.environ.get("ALLO_STANDIN_ORDER")) == "legacy":
        order = _kernel_order(fn) + [n for n in order if n not in _kernel_order(fn)]
    args = ", ".join(f"%arg{i}: {annotations[n].mlir}" for i, n in enumerate(order))
    itypes = "".join(annotations[n].itype for n in order)
    return (
        f'module {{\n  func.func @{fn.__name__}({args}) attributes {{dataflow, itypes = "{itypes}"}} {{\n'
        "    return\n  }\n}\n"
    )


def _kernel_order(fn) -> list[str]:
    """Region parameters in the order kernels first bind them (older builds)."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    order: list[str] = []
    for node in ast.walk(tree.body[0]):
        if isinstance(node, ast.FunctionDef) and node is not tree.body[0]:
            for dec in node.decorator_list:
                for kw in getattr(dec, "keywords", []):
                    if kw.arg == "args" and isinstance(kw.value, ast.List):
                        order += [e.id for e in kw.value.elts if isinstance(e, ast.Name) and e.id not in order]
    return order
