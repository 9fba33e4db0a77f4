"""`allo.passes` under the reference backend: MLIR passes have nothing to act on here."""

from allo_lsp.runner.reference.transform import Unsupported


def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(name)
    raise Unsupported(
        f"allo.passes.{name}", None, f"allo.passes.{name} is not part of the reference executor (it transforms MLIR)"
    )
