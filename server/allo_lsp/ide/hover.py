"""Hover: what the thing under the cursor compiles to.

On a region (name or decorator): the top function as the compiled module takes it. On a kernel:
its PEs and bindings. On a stream: its type and who puts and gets. On a call of a built module:
which argument lands in which parameter. On a name in `args=[...]`: the region parameter. On a
put or get of a kernel whose active PE is chosen (`ide/active_pe.py`): the element that PE names
and the PE at the other end.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from allo_lsp.analysis import Analysis
from allo_lsp.analysis.expression_types import expression_at, type_name
from allo_lsp.analysis.model import Kernel, ModuleCall, Position, Region, RegionParam, Stream
from allo_lsp.ide.active_pe import ActivePe
from allo_lsp.ide.active_pe import hover_markdown as active_pe_markdown
from allo_lsp.ide.at import CALL, KERNEL, KERNEL_ARG, KERNEL_PARAM, PARAM, REGION, STREAM, STREAM_USE, Hit, hits
from allo_lsp.ide.fifo_run import stream_hover_markdown
from allo_lsp.ide.outcomes import last_simulation_markdown, synthesis_links_markdown
from allo_lsp.ide.synthesis import AnyReport
from allo_lsp.ide.synthesis import kernel_markdown as kernel_synthesis_markdown
from allo_lsp.ide.types import HoverResult
from allo_lsp.protocol.messages import JobResult

_MAX_INSTANCES = 8


def hover(
    analysis: Analysis,
    pos: Position,
    reports: Mapping[str, AnyReport] | None = None,
    outcomes: Iterable[JobResult] = (),
    active: Iterable[ActivePe] = (),
) -> HoverResult | None:
    """What is at `pos`, with the newest synthesis figures of a kernel (`reports`: region name ->
    report), the last reference runs' FIFO figures of a stream and, on a region, its last
    simulation and who ran it (`outcomes`: the file's jobs); on a put or get, what the active PE
    of its kernel names there (`active`: the document's active PEs, on the analysed text)."""
    outcomes = list(outcomes)
    found, site = _hover(analysis, pos), _active_site(active, pos, outcomes)
    if found is None:
        return HoverResult(site[0].range, site[1]) if site is not None else None
    markdown = found.markdown + (f"\n\n{site[1]}" if site is not None else "")
    # Only the region under the cursor can hold what is hovered: comparing ranges over every
    # region of a 10,000-line file cost more than the hover itself.
    around = [r for r in analysis.model.regions if r.def_range.contains(pos) or r.decorator_range.contains(pos)]
    for region in around:
        report = (reports or {}).get(region.name)  # read (typed) only when a kernel is hovered
        kernel = (
            next((k for k in region.kernels if found.range in (k.range, k.decorator_range)), None) if report else None
        )
        if report and kernel:
            markdown += kernel_synthesis_markdown(report, kernel) or ""
    markdown += stream_hover_markdown(around, found.range, outcomes) or ""
    for region in around:
        if found.range in (region.range, region.decorator_range):
            markdown += last_simulation_markdown(outcomes, region.name) + synthesis_links_markdown(
                outcomes, region.name
            )
    return HoverResult(found.range, markdown)


def _active_site(active: Iterable[ActivePe], pos: Position, outcomes: list[JobResult]):
    """(the put or get at `pos`, what its kernel's active PE names there and the last run saw), or None."""
    for view in active:
        site = view.site_at(pos) if view.pe is not None else None
        if site is not None:
            return site, active_pe_markdown(site, view.pe.name, view.region, outcomes)  # type: ignore[union-attr]
    return None


def _hover(analysis: Analysis, pos: Position) -> HoverResult | None:
    for hit in hits(analysis.model, pos):
        markdown = _markdown(hit, analysis)
        if markdown is not None:
            return HoverResult(hit.range, markdown)
    return _expression(analysis, pos)


def _expression(analysis: Analysis, pos: Position) -> HoverResult | None:
    """An expression of a kernel body: the type Allo's inference gives it."""
    for region in analysis.model.regions:
        if not region.def_range.contains(pos):
            continue
        for kernel in region.kernels:
            found = expression_at(kernel, pos) if kernel.body_range and kernel.body_range.contains(pos) else None
            if found is not None:
                dims = f"[{', '.join('?' if d is None else str(d) for d in found.shape)}]" if found.shape else ""
                printed = f" (Allo prints `{found.type}{dims}`)" if str(found.type) != found.type.kind else ""
                return HoverResult(found.range, f"Allo type `{type_name(found.type)}{dims}`{printed}")
    return None


def _markdown(hit: Hit, analysis: Analysis) -> str | None:
    region = hit.region
    if hit.kind == REGION:
        return region_markdown(region)
    if hit.kind in (PARAM, KERNEL_ARG):
        return _param_markdown(region, hit.param)
    if hit.kind in (STREAM, STREAM_USE):
        return stream_markdown(hit.stream)
    if hit.kind == KERNEL:
        return kernel_markdown(region, hit.kernel)
    if hit.kind == KERNEL_PARAM:
        kp, p = hit.kernel_param, hit.param
        binding = f" <- `{p.name}`, #{region.params.index(p) + 1} of `{region.name}`" if p else " (not bound)"
        kind = kp.type.resolved if kp.type else kp.annotation or "?"
        return f"kernel parameter `{kp.name}: {kind}`{binding}"
    if hit.kind == CALL:
        return call_markdown(hit.call, analysis.options.allo_build)
    return None


def region_markdown(region: Region) -> str:
    pes = region.pe_count
    lines = [
        f"**region `{region.name}`** · {len(region.kernels)} kernel{'s' * (len(region.kernels) != 1)}"
        f" · {pes if pes is not None else '?'} PE{'s' * (pes != 1)}",
        "",
        "Compiled top function (declaration order, fixed Allo builds):",
        "",
        "| # | parameter | Allo type | MLIR type | interface | direction | kernels |",
        "|---|---|---|---|---|---|---|",
    ]
    for arg in region.top_signature:
        p = arg.param
        iface = f"m_axi `{arg.bundle}`" if arg.bundle else arg.interface
        lines.append(
            f"| {arg.position} | `{p.name}` | `{_type(p)}` | `{p.type.mlir if p.type else '?'}` | {iface} "
            f"| {p.direction.value} | {', '.join(p.kernels) or '—'} |"
        )
    lines += ["", "```python", f"mod({', '.join(p.name for p in region.params)})", "```"]
    legacy = region.legacy_order
    if legacy != [p.name for p in region.params if p.name in legacy]:
        firsts = ", then ".join(dict.fromkeys(a.kernel for a in region.legacy_signature))
        lines += [
            "",
            f"**Older Allo builds compile `{region.name}({', '.join(legacy)})`**: they order arguments "
            f"by the kernel that first binds each ({firsts}), so a call written for one build "
            "corrupts data on the other.",
        ]
    return "\n".join(lines)


def kernel_markdown(region: Region, kernel: Kernel) -> str:
    mapping = f"[{', '.join('?' if m is None else str(m) for m in kernel.mapping)}]" if kernel.mapping else "missing"
    pes = kernel.pe_count
    names = kernel.instance_names
    shown = ", ".join(f"`{n}`" for n in names[:_MAX_INSTANCES])
    if len(names) > _MAX_INSTANCES:
        shown += f", … ({len(names)} in all)"
    lines = [
        f"**kernel `{kernel.name}`** in region `{region.name}` · mapping `{mapping}` · "
        f"{pes if pes is not None else '?'} PE{'s' * (pes != 1)}",
    ]
    if shown:
        lines += ["", f"PEs: {shown}"]
    if kernel.params:
        lines += ["", "| parameter | type | bound to | access |", "|---|---|---|---|"]
        for kp in kernel.params:
            p = region.param(kp.bound_to) if kp.bound_to else None
            bound = f"`{kp.name} <- {p.name}`, #{region.params.index(p) + 1}" if p else "not bound"
            access = "/".join(a for a, on in (("read", kp.access.reads), ("write", kp.access.writes)) if on)
            kind = kp.type.resolved if kp.type else kp.annotation or "?"
            lines.append(f"| `{kp.name}` | `{kind}` | {bound} | {access or '—'} |")
    return "\n".join(lines)


def stream_markdown(stream: Stream) -> str:
    if stream.type is None:
        head = f"**stream `{stream.name}`**: `{stream.annotation}`"
    else:
        t = stream.type
        dims = f" · array `[{', '.join('?' if d is None else str(d) for d in t.dims)}]`" if t.dims else ""
        depth = "?" if t.depth is None else t.depth
        head = f"**stream `{stream.name}`**: element `{t.element.resolved}` · depth {depth}{dims} · `{t.mlir}`"
    puts = ", ".join(dict.fromkeys(u.kernel for u in stream.puts)) or "no kernel"
    gets = ", ".join(dict.fromkeys(u.kernel for u in stream.gets)) or "no kernel"
    return f"{head}\n\nput by: {puts}  \ngot by: {gets}"


def call_markdown(call: ModuleCall, allo_build: str) -> str:
    region = call.region
    params = region.signature_for(allo_build)
    order = "kernel-appearance order (older Allo builds)" if allo_build == "legacy" else "declaration order"
    lines = [
        f"**`{call.module}`** is `{region.name}` built with target `{call.build_target or '?'}`; arguments in {order}:",
        "",
        "| # | parameter | type | receives |",
        "|---|---|---|---|",
    ]
    for i, p in enumerate(params):
        received = f"`{call.args[i].text}`" if i < len(call.args) and not call.args[i].keyword else "—"
        lines.append(f"| {i + 1} | `{p.name}` | `{_type(p)}` | {received} |")
    return "\n".join(lines)


def _param_markdown(region: Region, p: RegionParam) -> str:
    index = region.params.index(p)
    arg = region.top_signature[index]
    iface = f"m_axi `{arg.bundle}`" if arg.bundle else arg.interface
    order = ", ".join(q.name for q in region.params)
    mlir = p.type.mlir if p.type else "?"
    return (
        f"region parameter `{p.name}`, #{index + 1} of `{region.name}({order})`: `{_type(p)}` "
        f"(`{mlir}`, {iface}), {p.direction.value}"
    )


def _type(p: RegionParam) -> str:
    return p.type.resolved if p.type else p.annotation or "?"
