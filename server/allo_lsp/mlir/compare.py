"""The compiled module against the source: which kernel a function is, and whether the top
function takes the arguments the region declares.

MLIR names arguments `%arg0, %arg1, ...`, so a compiled argument is matched to a region parameter
by type alone. Types cannot tell two orders apart when they agree position by position (say,
`top(A, B)` with `A` and `B` both `int32[16]`): such a module compares equal, and
`probe.reorders_arguments` is the way to learn which order a given Allo build uses.
"""

from __future__ import annotations

from dataclasses import dataclass

from allo_lsp.analysis.model import Region, RegionParam
from allo_lsp.mlir.functions import ParsedModule


@dataclass(frozen=True)
class Mismatch:
    message: str
    function: str | None  # the compiled top function compared; None when there was none to compare
    compiled: tuple[str, ...]  # its argument types, in order
    declared: tuple[str, ...]  # the region's top signature types, in declaration order ("?": unresolved)
    legacy_order: bool = False  # the compiled order is the kernel-appearance order of older builds


def kernel_of(function_name: str, region: Region) -> tuple[str, tuple[int, ...]] | None:
    """`gemm_1_2` -> (`gemm`, (1, 2)), matched against each kernel's real PE names.

    None when no kernel has a PE of that name, or when two do (Allo would not build that either).
    """
    found = [
        (k.name, tuple(int(i) for i in function_name[len(k.name) + 1 :].split("_")))
        for k in region.kernels
        if k.mapping and function_name in k.instance_names
    ]
    return found[0] if len(found) == 1 else None


def compare_signature(parsed: ParsedModule, region: Region) -> Mismatch | None:
    """None when the compiled top function takes the region's parameters in declaration order."""
    declared = [a.param for a in region.top_signature]
    declared_types = tuple(_type(p) for p in declared)
    if parsed.error:
        return Mismatch(f"Cannot compare with the compiled module: {parsed.error}", None, (), declared_types)
    top = parsed.top(region.name)
    if top is None:
        return Mismatch(
            f"The compiled module has no top function '@{region.name}' (nor any function marked `dataflow`).",
            None,
            (),
            declared_types,
        )
    compiled = top.arg_types
    if _matches(compiled, declared):
        return None
    legacy = region.signature_for("legacy")
    if legacy != declared and _matches(compiled, legacy):
        message = (
            f"The compiled top function takes {_signature(top.name, [p.name for p in legacy], compiled)} "
            f"but the region declares {region.name}({', '.join(p.name for p in declared)}): this Allo "
            f"build orders arguments by kernel appearance (an older build); call "
            f"mod({', '.join(p.name for p in legacy)}) or upgrade Allo."
        )
        return Mismatch(message, top.name, compiled, declared_types, legacy_order=True)
    names = [_candidates(i, t, region.params) for i, t in enumerate(compiled)]
    message = (
        f"The compiled top function takes {_signature(top.name, names, compiled)} but the region "
        f"declares {_signature(region.name, [p.name for p in declared], declared_types)}: "
        f"{_difference(compiled, declared)}. Was the MLIR compiled from another version of this file?"
    )
    return Mismatch(message, top.name, compiled, declared_types)


def _type(param: RegionParam) -> str:
    return param.type.mlir if param.type else "?"


def _type_matches(param: RegionParam, compiled: str) -> bool:
    """An unresolved type (`?`, or a `?` dimension) matches anything in its place (a character or more)."""
    first, *pieces = _type(param).split("?")
    if not pieces:
        return first == compiled
    *middle, last = pieces
    if not compiled.startswith(first):
        return False
    # The text between two `?`s where it first fits leaves the most to the rest. (A regex of `.+`
    # for each `?` backtracked as a power of their number: 8 against a 40-dimension type took 1.6 s.)
    end = len(first)
    for piece in middle:
        found = compiled.find(piece, end + 1)
        if found < 0:
            return False
        end = found + len(piece)
    return len(compiled) - len(last) > end and compiled.endswith(last)


def _matches(compiled: tuple[str, ...], params: list[RegionParam]) -> bool:
    return len(compiled) == len(params) and all(map(_type_matches, params, compiled))


def _candidates(index: int, compiled: str, params: list[RegionParam]) -> str:
    """The parameter a compiled argument can be, by type; several or none are said as such."""
    names = [p.name for p in params if _type_matches(p, compiled)]
    if len(names) == 1:
        return names[0]
    if names:
        return f"#{index + 1} ({' or '.join(names)})"
    return f"#{index + 1} (no parameter of this type)"


def _signature(name: str, arg_names: list[str], types: tuple[str, ...]) -> str:
    return f"{name}({', '.join(f'{n}: {t}' for n, t in zip(arg_names, types))})"


def _difference(compiled: tuple[str, ...], declared: list[RegionParam]) -> str:
    if len(compiled) != len(declared):
        return f"{len(compiled)} arguments where the region declares {len(declared)}"
    if sorted(compiled) == sorted(_type(p) for p in declared):
        return "the same types in an order that is neither the declaration nor the kernel-appearance order"
    i = next(i for i, (p, t) in enumerate(zip(declared, compiled)) if not _type_matches(p, t))
    param = declared[i]
    return f"argument {i + 1} is {compiled[i]} where the region declares {param.name}: {_type(param)}"
