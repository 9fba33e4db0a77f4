"""A package's names imported from their modules on first use (PEP 562): importing the package,
as the server does at start, costs nothing before the first diagnostics. (reports/, which imports
nothing of ours, writes the same out.)"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable


def attributes(package: str, module_of: dict[str, str]) -> Callable[[str], object]:
    """The package's module-level `__getattr__`: `name` from `package.<module_of[name]>`, kept."""

    def __getattr__(name: str) -> object:
        if name not in module_of:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module_of[name]}"), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
