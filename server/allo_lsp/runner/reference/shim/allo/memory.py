"""`allo.memory` under the reference backend: layouts as the executor reads them.

`S(i)` is ("S", i) (shard along mapping axis i), `R` is ("R",) (replicate); a string layout
(`MemLayout("S0R")`, the older `Layout("S0R")`) is the list of those, one per dimension.
"""

import re

from allo_lsp.runner.reference.transform import Unsupported

_SPEC = re.compile(r"R|S\d+")


def parse(spec: str) -> list:
    tokens = _SPEC.findall(spec)
    if "".join(tokens) != spec:
        raise ValueError(f"layout {spec!r}: each dimension is R or S<axis> (e.g. 'S0R')")
    return [("R",) if t == "R" else ("S", int(t[1:])) for t in tokens]


class Layout:
    def __new__(cls, spec: str):  # the older string form `Layout("S0R")`
        return parse(spec)

    @staticmethod
    def Shard(axis):
        return ("S", axis)

    Replicate = ("R",)


def MemLayout(spec: str):
    return parse(spec)


def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(name)
    raise Unsupported(f"allo.memory.{name}", None, f"allo.memory.{name} is not part of the reference executor")
