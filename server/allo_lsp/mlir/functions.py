"""The functions of an MLIR module as Allo prints it: names, argument types, Allo's attributes.

`str(df.customize(top).module)` carries no source locations, so functions are matched to the
source by name (`producer_0` is PE 0 of kernel `producer`) and arguments by type. Types are
normalised to the spelling `AlloType.mlir` produces (`memref<16x16xi32>`, `!allo.stream<i32, 4>`)
so the two compare as strings.

The module is read where it was made, by the runner with Allo's own bindings (`from_runner`: the
functions, and the streams and calls too). Without that reading (an Allo without `allo._mlir`,
a result written before there was one), `parse_functions` reads the function headers with
whichever bindings the server has (`bindings.py`).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from allo_lsp.mlir import bindings, headers
from allo_lsp.protocol.details import (
    CompiledCall,
    CompiledFunction,
    CompiledModule,
    CompiledStream,
    Details,
    MlirDetails,
)

__all__ = [
    "CompiledCall",
    "CompiledFunction",
    "CompiledStream",
    "ParsedModule",
    "from_runner",
    "parse_functions",
    "parse_module",
]

# What upstream bindings say about Allo's own ops and types; Allo's bindings never say it.
_WITHOUT_ALLO_DIALECT = re.compile(r"not found for custom op|invalid memref element type")


@dataclass(frozen=True)
class ParsedModule:
    functions: tuple[CompiledFunction, ...] = ()
    error: str | None = None  # set when the text could not be read; `functions` is then empty
    bindings: str | None = None  # the module that parsed it, e.g. `torch_mlir.ir`
    # What only a reading of the bodies gives (the runner's): None when the headers alone were read.
    streams: tuple[CompiledStream, ...] | None = None
    calls: tuple[CompiledCall, ...] | None = None
    truncated: bool = False  # the runner's reading stopped at its bounds: its lists are not all

    def function(self, name: str) -> CompiledFunction | None:
        return next((f for f in self.functions if f.name == name), None)

    def top(self, region_name: str) -> CompiledFunction | None:
        """The region's top function: by name, else the first one marked `dataflow`."""
        return self.function(region_name) or next((f for f in self.functions if f.dataflow), None)


def parse_module(text: str, details: Details | None = None) -> ParsedModule:
    """The module of a job's outcome (`details`: its details): the runner's reading when it has
    one, else the server's (its bindings imported only then), whose error then also says why the
    runner had none."""
    if isinstance(details, MlirDetails) and details.compiled is not None:
        return from_runner(details.compiled)
    parsed = parse_functions(text)
    unread = details.unread if isinstance(details, MlirDetails) else None
    if parsed.error and unread:
        return dataclasses.replace(parsed, error=f"{parsed.error} (The job's Allo did not read it either: {unread})")
    return parsed


def from_runner(compiled: CompiledModule) -> ParsedModule:
    """The runner's reading (`MlirDetails.compiled`), its types in the server's spelling."""
    functions = tuple(
        CompiledFunction(
            f.name, tuple(normalize_type(t) for t in f.arg_types), f.itypes, f.stypes, f.kernel, f.dataflow, f.nested
        )
        for f in compiled.functions
    )
    streams = tuple(CompiledStream(s.name, s.function, normalize_type(s.element), s.depth) for s in compiled.streams)
    return ParsedModule(functions, None, compiled.bindings, streams, tuple(compiled.calls), compiled.truncated)


def parse_functions(text: str) -> ParsedModule:
    """Every `func.func` in document order. Never raises: problems are reported in `error`."""
    found = bindings.load_bindings()
    if found is None:
        return ParsedModule(
            error=f"No MLIR Python bindings are importable (tried {', '.join(bindings.CANDIDATES)}): "
            f"{bindings.INSTALL_HINT}."
        )
    placeholders: dict[str, str] = {}
    try:
        funcs = found.functions(text)
    except bindings.ParseError as exc:
        if not any(_WITHOUT_ALLO_DIALECT.search(d.message) for d in exc.diagnostics):
            return ParsedModule(error=_describe(exc), bindings=found.module_name)
        reduced, placeholders = headers.reduce(text)
        try:
            funcs = found.functions(reduced)
        except bindings.ParseError as again:
            return ParsedModule(error=_describe(again), bindings=found.module_name)
    return ParsedModule(tuple(_function(f, placeholders) for f in funcs), bindings=found.module_name)


def _function(header: bindings.FuncHeader, placeholders: dict[str, str]) -> CompiledFunction:
    attrs = header.attributes
    return CompiledFunction(
        name=header.name,
        arg_types=tuple(normalize_type(headers.restore(t, placeholders)) for t in header.inputs),
        itypes=_string(attrs.get("itypes")),
        stypes=_string(attrs.get("stypes")),
        kernel=attrs.get("df.kernel") is True,
        dataflow=attrs.get("dataflow") is True,
        nested=attrs.get("df.nested_kernel") is True,
    )


def _string(value: str | bool | None) -> str | None:
    return value if isinstance(value, str) else None


def normalize_type(text: str) -> str:
    """MLIR's printer spacing (`, ` between parameters) also inside opaque types it keeps verbatim."""
    # Split and stripped, not `\s*,\s*`-style patterns: those retried a long run of blanks from
    # each of its characters (quadratic).
    text = ", ".join(part.strip() for part in text.strip().split(","))
    *before, last = text.split(">")  # blanks before each `>` go
    first, *after = ">".join([*(part.rstrip() for part in before), last]).split("<")  # ... after each `<`
    return "<".join([first, *(part.lstrip() for part in after)])


def _describe(exc: bindings.ParseError) -> str:
    return "The MLIR does not parse: " + "; ".join(str(d) for d in exc.diagnostics)
