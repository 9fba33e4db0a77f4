"""`allo.backend.aie` under the reference backend: no NPU toolchain, unless AIE is emulated
(`emulate.py`). An `ExternalModule` (a C++ kernel) can never run here."""

from allo_lsp.runner.reference import emulate
from allo_lsp.runner.reference.transform import Unsupported


def is_available() -> bool:
    return emulate.enabled("aie")


class ExternalModule:
    def __init__(self, *args, **kwargs) -> None:
        from allo.dataflow import _user_line

        raise Unsupported("ExternalModule (a C++ AIE kernel)", _user_line())


def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(name)
    raise Unsupported(
        f"allo.backend.aie.{name}", None, f"allo.backend.aie.{name} is not part of the reference executor"
    )
