"""The static analysis against the module Allo compiled: a differential test of `check` that every
MLIR job runs. Where the two disagree, the analysis is wrong (Allo is what runs), so a
disagreement is allo-lsp's bug, not the design's.

Only what both sides know for certain is compared:
- PE instances: each kernel's `df.kernel` functions (`NAME_I_J`) against its mapping. A PE the
  module has and the mapping does not is certain. One it lacks is only when the kernel's PEs all
  compile alike (no `get_pid()`, no `allo.meta_*`) and some of them are there: Allo drops a PE
  whose body compiles to nothing (`remove_unused_func_ops`), which only the body tells.
- Streams (the runner's reading only: the server's bindings see headers): each declaration of a
  resolved type against the `allo.stream_construct` ops of the top function of its name
  (`NAME`, or `NAME_I_J` per FIFO of a stream array): element type, depth, the FIFOs there are.
- Kernel arguments: each PE's arguments before its streams against the kernel's parameters (how
  many, and each resolved array's type, unless it has a layout: its share is compiled); and, when the top function takes the region's parameters
  in declaration order, which of them the top function's call passes to each.
Regions whose kernels call regions (nested PEs, renamed `_fixed`) and readings cut at their bounds
are not compared.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from allo_lsp.analysis.model import Kernel, Region, Stream
from allo_lsp.mlir.functions import CompiledFunction, ParsedModule, normalize_type
from allo_lsp.protocol.details import ARG, COMPILED_LIMIT

_SHOWN = 6  # names listed in a message; the rest counted
_INDICES = re.compile(r"(?:_\d+)+")


@dataclass(frozen=True)
class Disagreement:
    subject: str  # "kernel `producer`", "stream `pipe`"
    expected: str  # what the analysis expects
    compiled: str  # what Allo compiled

    @property
    def message(self) -> str:
        return (
            f"allo-lsp's analysis disagrees with the module Allo compiled, on {self.subject}: the analysis "
            f"expects {self.expected}; Allo compiled {self.compiled}. This is a bug of allo-lsp's, not of the "
            "design: its diagnostics here may be wrong (please report it, with the MLIR view's module)."
        )


def disagreements(parsed: ParsedModule, region: Region, declaration_order: bool) -> list[Disagreement]:
    """Where the analysis of `region` and the module disagree; `declaration_order`: the top function
    takes the region's parameters in declaration order (the signature check found nothing)."""
    top = parsed.top(region.name)
    if parsed.error or parsed.truncated or top is None or any(k.subregions for k in region.kernels):
        return []
    pes = _pes_by_kernel(parsed.functions, region)
    found = []
    for kernel in region.kernels:
        compiled = pes.get(kernel.name)
        if compiled is None:  # a compiled name two kernels could own: not compared
            continue
        found += _instances(kernel, compiled)
        found += _arguments(kernel, compiled, region)
    if parsed.streams is not None:
        compiled_streams = [s for s in parsed.streams if s.function == top.name]
        for stream in region.streams:
            found += _stream(stream, compiled_streams, region)
    if declaration_order and parsed.calls is not None:
        calls = {c.callee: c for c in parsed.calls if c.caller == top.name}
        for kernel in region.kernels:
            found += _bindings(kernel, pes.get(kernel.name) or [], calls, region)
    return found


def _pes_by_kernel(functions: tuple[CompiledFunction, ...], region: Region) -> dict[str, list[CompiledFunction]]:
    """Each kernel's compiled PE functions (`NAME` then `_I` per dimension), in module order. A
    kernel one of whose names another kernel could own too (`a` and `a_1` both own `a_1_0`) is left out."""
    by_kernel: dict[str, list[CompiledFunction]] = {k.name: [] for k in region.kernels}
    ambiguous: set[str] = set()
    for f in functions:
        if not f.kernel or f.nested:
            continue
        owners = [k for k in by_kernel if f.name.startswith(k + "_") and _INDICES.fullmatch(f.name, len(k))]
        if len(owners) == 1:
            by_kernel[owners[0]].append(f)
        else:
            ambiguous.update(owners)
    return {k: v for k, v in by_kernel.items() if k not in ambiguous}


def _instances(kernel: Kernel, compiled: list[CompiledFunction]) -> list[Disagreement]:
    expected = kernel.instance_names
    if not expected:  # mapping unknown (or too large to name)
        return []
    names = [f.name for f in compiled]
    surplus = [n for n in names if n not in set(expected)]
    missing = [n for n in expected if n not in set(names)]
    uniform = not kernel.meta_uses and not kernel.pid_unpacks
    if not surplus and not (missing and uniform and names):
        return []
    mapping = ", ".join(str(m) for m in kernel.mapping or ())
    return [
        Disagreement(
            f"kernel `{kernel.name}`",
            f"{_count(len(expected), 'PE')} (mapping=[{mapping}]: {_names(expected)})",
            f"{_count(len(names), 'PE function')} ({_names(names)})",
        )
    ]


def _arguments(kernel: Kernel, compiled: list[CompiledFunction], region: Region) -> list[Disagreement]:
    """Each PE's arguments before its streams (`move_stream_to_interface` appends those) against
    the kernel's parameters."""
    if any(p.stateful for p in kernel.params) or kernel.captured:
        return []
    for f in compiled:
        given = [t for t in f.arg_types if not t.startswith("!allo.stream<")]
        if len(given) != len(kernel.params):
            return [
                Disagreement(
                    f"the arguments of kernel `{kernel.name}`",
                    f"{_count(len(kernel.params), 'parameter')} ({', '.join(p.name for p in kernel.params) or 'none'})",
                    f"@{f.name} with {_count(len(given), 'argument')} besides its streams ({', '.join(given) or 'none'})",
                )
            ]
        for i, (param, compiled_type) in enumerate(zip(kernel.params, given)):
            declared = _array_type(param.type)
            if declared is not None and declared != compiled_type:
                return [
                    Disagreement(
                        f"parameter `{param.name}` of kernel `{kernel.name}`",
                        f"{declared} ({param.annotation})",
                        f"argument {i + 1} of @{f.name} as {compiled_type}",
                    )
                ]
    return []


def _bindings(kernel: Kernel, compiled: list[CompiledFunction], calls: dict, region: Region) -> list[Disagreement]:
    """Which region parameter the top function passes for each kernel parameter (`args=[...]`)."""
    if not kernel.bindings_known or kernel.captured or _shares_local_names(kernel, region):
        return []
    index = {p.name: i for i, p in enumerate(region.params)}
    for f in compiled:
        call = calls.get(f.name)
        if call is None:
            continue
        for param, operand in zip(kernel.params, call.operands):
            if param.bound_to not in index or not operand.startswith(ARG):
                continue
            passed = int(operand[len(ARG) :])
            if passed != index[param.bound_to]:
                given = region.params[passed].name if passed < len(region.params) else f"argument {passed + 1}"
                return [
                    Disagreement(
                        f"parameter `{param.name}` of kernel `{kernel.name}`",
                        f"it bound to the region's `{param.bound_to}` (args=[...])",
                        f"@{region.name} passing `{given}` to @{f.name} in its place",
                    )
                ]
    return []


def _shares_local_names(kernel: Kernel, region: Region) -> bool:
    """A parameter name another kernel binds to another region parameter: older builds merge such
    names (issue #592), so which parameter a build passes is not the analysis' to say."""
    mine = {p.name: p.bound_to for p in kernel.params}
    return any(
        p.name in mine and p.bound_to != mine[p.name]
        for other in region.kernels
        if other is not kernel
        for p in other.params
    )


def _stream(stream: Stream, compiled: list, region: Region) -> list[Disagreement]:
    declared = _stream_type(stream)
    if declared is None:
        return []
    element, depth, dims = declared
    expected = [stream.name] if not dims else [f"{stream.name}_{'_'.join(map(str, i))}" for i in _indices(dims)]
    if not expected:
        return []
    by_name = {s.name: s for s in compiled}
    others = {n for s in region.streams if s is not stream for n in _names_of(s)}
    elements = [by_name[n] for n in expected if n in by_name]
    stray = sorted(
        s.name
        for s in compiled
        if s.name not in set(expected)
        and s.name not in others
        and s.name.startswith(stream.name + "_")
        and _INDICES.fullmatch(s.name, len(stream.name))
    )
    subject = f"stream `{stream.name}`"
    wanted = f"!allo.stream<{element}, {depth}>"
    if not elements:
        return [Disagreement(subject, f"{_fifos(expected)} of {wanted}", f"no stream named {_names(expected)}")]
    differing = [s for s in elements if s.depth is not None and (s.depth != depth or s.element != element)]
    if differing:
        first = differing[0]
        return [
            Disagreement(
                subject,
                f"{_fifos(expected)} of {wanted} ({stream.annotation})",
                f"{_count(len(differing), 'FIFO')} of !allo.stream<{first.element}, {first.depth}> ({_names([s.name for s in differing])})",
            )
        ]
    if dims and (stray or len(elements) != len(expected)):
        present = [n for n in expected if n in by_name] + stray
        return [
            Disagreement(
                subject,
                f"{_fifos(expected)} ({stream.annotation})",
                f"{_count(len(present), 'FIFO')} ({_names(present)})",
            )
        ]
    return []


def _stream_type(stream: Stream) -> tuple[str, int, tuple[int, ...]] | None:
    """(element, depth, dims) of a declaration whose type is known to the last dimension."""
    st = stream.type
    if st is None or not stream.well_formed or stream.has_value or stream.legacy_pipe:
        return None
    element = st.element.mlir if st.element.shape else st.element.element_mlir
    if "?" in element or not isinstance(st.depth, int) or not all(isinstance(d, int) for d in st.dims):
        return None
    count = 1
    for d in st.dims:
        count *= d  # type: ignore[operator]
    if count > COMPILED_LIMIT:
        return None
    return normalize_type(element), st.depth, tuple(st.dims)  # type: ignore[arg-type]


def _names_of(stream: Stream) -> list[str]:
    declared = _stream_type(stream)
    if declared is None or not declared[2]:
        return [stream.name]
    return [f"{stream.name}_{'_'.join(map(str, i))}" for i in _indices(declared[2])]


def _indices(dims: tuple[int, ...]):
    return itertools.product(*(range(d) for d in dims))


def _array_type(t) -> str | None:
    """A parameter's MLIR type when it is an array known to the last dimension. Not with a layout
    (`@ [S(0), R]`): Allo compiles the PE's share of it (`DTensor.get_local_shape`)."""
    if t is None or t.is_scalar or t.layout or not t.fully_resolved or "?" in t.mlir:
        return None
    return normalize_type(t.mlir)


def _fifos(names: list[str]) -> str:
    return f"{_count(len(names), 'FIFO')} ({_names(names)})" if len(names) > 1 else f"one FIFO `{names[0]}`"


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'s' if n != 1 else ''}"


def _names(names: list[str]) -> str:
    shown = ", ".join(names[:_SHOWN])
    return shown + (f" and {len(names) - _SHOWN} more" if len(names) > _SHOWN else "") if names else "none"
