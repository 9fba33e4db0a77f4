"""The semantic model of a file: what Allo would build from each `@df.region()`.

Plain data, in editor terms: every position is a `Range` with 0-based lines and 0-based columns
counted in code points (the LSP layer converts to UTF-16). Nothing here runs user code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from allo_lsp.analysis.types import AlloType, StreamType
from allo_lsp.protocol.typing_rules import Ty


# Slots: a model holds thousands of positions and ranges; without them each carries a dict.
@dataclass(frozen=True, order=True, slots=True)
class Position:
    line: int
    column: int


@dataclass(frozen=True, slots=True)
class Range:
    start: Position
    end: Position

    @staticmethod
    def of(line: int, col: int, end_line: int, end_col: int) -> Range:
        return Range(Position(line, col), Position(end_line, end_col))

    def contains(self, pos: Position) -> bool:
        return self.start <= pos <= self.end

    def shifted(self, lines: int) -> Range:
        return Range(
            Position(self.start.line + lines, self.start.column),
            Position(self.end.line + lines, self.end.column),
        )


class Direction(str, Enum):
    IN = "in"
    OUT = "out"
    INOUT = "inout"
    UNUSED = "unused"


@dataclass
class Access:
    """What a kernel does with one of its parameters, and where its body names it."""

    reads: bool = False
    writes: bool = False
    uses: list[Range] = field(default_factory=list)
    every_pe: bool = False  # named outside any `allo.meta_if/elif/else` branch: every PE uses it


@dataclass
class RegionParam:
    name: str
    range: Range  # the name
    annotation: str  # as written
    annotation_range: Range | None
    type: AlloType | None  # None: no annotation, or one that is not an Allo type
    direction: Direction = Direction.UNUSED
    kernels: list[str] = field(default_factory=list)  # kernels that bind it, in order


@dataclass
class KernelParam:
    name: str
    range: Range
    annotation: str
    annotation_range: Range | None
    type: AlloType | None
    bound_to: str | None = None  # region parameter name bound through args=[...]
    binding_range: Range | None = None  # the name in args=[...]
    access: Access = field(default_factory=Access)
    shadows: str | None = None  # what visible symbol the name shadows ("region parameter 'A'")
    stateful: bool = False  # annotated `T @ Stateful`


@dataclass
class ArgName:
    """One entry of `args=[...]`: a bare name, or `None` when the entry is something else."""

    name: str | None
    range: Range


@dataclass
class PidUnpack:
    targets: int
    range: Range


@dataclass
class StreamUse:
    stream: str
    op: str  # "put" or "get"
    kernel: str
    range: Range  # the stream name at the use
    call_range: Range
    arg_count: int
    indexed: bool
    # Times one PE runs the use: the product of the enclosing loops' trip counts when each folds
    # to a constant and no branch or while loop encloses it; None otherwise (try_put/try_get too).
    trips: int | None = None
    meta_branch: bool = False  # inside `allo.meta_if/elif/else`: which PEs run it is decided per PE


@dataclass
class LocalBinding:
    """A name a kernel's body assigns (`x = ...`, `x: T = ...`)."""

    name: str
    range: Range


@dataclass
class LibraryCall:
    """A call in a kernel's body of a function of Python's `math` or of numpy (`np.exp(x)`)."""

    function: str  # qualified: "math.exp", "numpy.exp"
    range: Range  # the callee as written


@dataclass
class MetaUse:
    func: str  # meta_if, meta_elif, meta_else, meta_for
    qualified: bool  # written as an attribute of `allo`
    matched: bool  # meta_elif/meta_else: an open meta_if chain of the same meta level takes it
    range: Range
    # Unmatched only in a later iteration of the allo.meta_for around it (Allo unrolls the loop:
    # the copy of an earlier iteration closed the chain this one pairs with)
    unrolled: bool = False


@dataclass(frozen=True, slots=True)
class TypedExpression:
    """An expression of a kernel body and the Allo type Allo's inference gives it."""

    range: Range
    type: Ty
    shape: tuple = ()  # an array's dimensions, `()` for a scalar


@dataclass(frozen=True, slots=True)
class TypedLocal:
    """An untyped local at its first binding, typed by it (later assignments are cast to it)."""

    name: str
    range: Range
    type: Ty


@dataclass(frozen=True, slots=True)
class TypingProblem:
    """What Allo's type inference says of the body: `error` stops the build, else a warning."""

    range: Range
    message: str
    error: bool
    kind: str  # "name", "call", "operator", "bits", "slice", "range", "stream-index" (`expression_types.py`)


@dataclass(frozen=True, slots=True)
class Operation:
    """An operator of the body with its operands' types (`right` None for `~x`, `-x`), the
    value of an int literal operand (None where the operand is not one), and, for a division
    (`/`, `//`, `%`), whether each operand is known never to be negative (False for the other
    operators, where no rule asks: `analysis/non_negative.py`)."""

    range: Range
    op: str  # "+", "//", "<<", "~", ...
    left: Ty | None
    right: Ty | None
    left_literal: int | None = None
    right_literal: int | None = None
    left_non_negative: bool = False
    right_non_negative: bool = False


@dataclass(frozen=True, slots=True)
class TypedPut:
    """`s.put(value)`: the value's type beside the stream's element type."""

    range: Range  # the value
    stream: str
    value: Ty
    element: Ty


@dataclass
class KernelTyping:
    """Every typed expression of a kernel body, and what its types say (`expression_types.py`)."""

    expressions: list[TypedExpression] = field(default_factory=list)
    locals: list[TypedLocal] = field(default_factory=list)
    problems: list[TypingProblem] = field(default_factory=list)
    operations: list[Operation] = field(default_factory=list)
    puts: list[TypedPut] = field(default_factory=list)
    calls: list[tuple[str, Range]] = field(default_factory=list)  # `allo.<function>(...)`, the callee


@dataclass
class Kernel:
    name: str
    range: Range  # the function name
    decorator_range: Range
    mapping: tuple[int | None, ...] | None  # None: missing or not a list
    mapping_range: Range | None
    mapping_keyword_index: int | None  # position of `mapping=` among the keywords
    mapping_keyword_range: Range | None
    args: list[ArgName] | None  # None: no `args=` keyword
    args_range: Range | None
    args_is_list: bool
    params: list[KernelParam] = field(default_factory=list)
    pid_unpacks: list[PidUnpack] = field(default_factory=list)
    meta_uses: list[MetaUse] = field(default_factory=list)
    body_range: Range | None = None
    subregions: list[Region] = field(default_factory=list, repr=False)  # regions its body calls
    captured: dict[str, Access] = field(default_factory=dict)  # region parameters used unbound
    local_bindings: list[LocalBinding] = field(default_factory=list)
    library_calls: list[LibraryCall] = field(default_factory=list)
    # What the body's typing (`expression_types.py`) needs of the world, folded by the evaluator:
    # the numbers and Allo types the body reads by name, each local annotation's type by the
    # annotation's start (line, column); and the typing itself, made once per analysis.
    constants: dict[str, object] = field(default_factory=dict)
    annotations: dict[tuple[int, int], AlloType] = field(default_factory=dict)
    data_globals: dict[str, bool] = field(default_factory=dict)  # data read by name: True, a NumPy array
    typing: KernelTyping | None = field(default=None, compare=False, repr=False)

    @property
    def bindings_known(self) -> bool:
        """`args` absent or a list literal of names: every binding can be read from source."""
        if self.args_range is None:
            return True
        return self.args_is_list and all(a.name is not None for a in self.args or ())

    @property
    def pe_count(self) -> int | None:
        if self.mapping is None or any(m is None for m in self.mapping):
            return None
        n = 1
        for m in self.mapping:
            n *= m  # type: ignore[operator]
        return n

    @property
    def instance_names(self) -> list[str]:
        """`gemm_0_1` style PE names, in the row-major order Allo creates them."""
        if self.pe_count is None or self.pe_count > 4096:
            return []
        names = [self.name]
        for extent in self.mapping or ():
            names = [f"{n}_{i}" for n in names for i in range(extent or 0)]
        return names


@dataclass
class Stream:
    name: str
    range: Range
    annotation: str
    annotation_range: Range | None
    type: StreamType | None
    well_formed: bool = True  # `Stream[T, depth]`, optionally followed by `[dims]`
    has_value: bool = False
    legacy_pipe: bool = False  # `df.pipe(...)`, removed syntax
    puts: list[StreamUse] = field(default_factory=list)
    gets: list[StreamUse] = field(default_factory=list)


@dataclass
class BodyStatement:
    """A statement of a region's body that is not a stream, a `ConstExpr` declaration or a kernel."""

    kind: str  # "assignment", "call", "function", "for" ...
    range: Range


@dataclass
class RemovedSyntax:
    """Old Allo syntax still found in code: what it is, where, and its modern spelling."""

    kind: str  # "df.pipe", "string layout", "parameter-less region", "stateful()"
    range: Range
    replacement: str | None = None


@dataclass
class TopArg:
    """One argument of the compiled top function."""

    position: int  # 1-based, as users count
    param: RegionParam
    bundle: str | None  # `gmem0`... for array arguments

    @property
    def interface(self) -> str:
        return "m_axi" if self.bundle else "scalar (unsupported)"


@dataclass
class LegacyArg:
    """A top argument as older builds make it: keyed on the kernel's local parameter name."""

    local_name: str
    kernel: str
    params: list[str]  # region parameters merged into it (more than one is issue #592)


@dataclass
class Region:
    name: str
    range: Range  # the function name
    decorator_range: Range
    def_range: Range  # the whole definition
    params: list[RegionParam]
    kernels: list[Kernel]
    streams: list[Stream]
    generic_params: list[str] = field(default_factory=list)
    params_range: Range | None = None
    scope_path: tuple[str, ...] = ()  # enclosing functions, outermost first
    removed_syntax: list[RemovedSyntax] = field(default_factory=list)
    stream_uses: list[StreamUse] = field(default_factory=list)  # in source order
    other_statements: list[BodyStatement] = field(default_factory=list)

    def param(self, name: str) -> RegionParam | None:
        return next((p for p in self.params if p.name == name), None)

    def kernel(self, name: str) -> Kernel | None:
        return next((k for k in self.kernels if k.name == name), None)

    def stream(self, name: str) -> Stream | None:
        return next((s for s in self.streams if s.name == name), None)

    @property
    def bindings_known(self) -> bool:
        return all(k.bindings_known for k in self.kernels)

    @property
    def parameterless_api(self) -> bool:
        """The removed API: no region parameters, kernels take global arrays without `args`."""
        return any(r.kind == "parameter-less region" for r in self.removed_syntax)

    @property
    def pe_count(self) -> int | None:
        """PEs running at once: each kernel's, plus those of regions its PEs call."""
        return self._pe_count(frozenset())

    def _pe_count(self, outer: frozenset[int]) -> int | None:
        if id(self) in outer:  # a region reached through itself: not a design Allo can build
            return None
        total = 0
        for k in self.kernels:
            inner = [r._pe_count(outer | {id(self)}) for r in k.subregions]
            if k.pe_count is None or None in inner:
                return None
            total += k.pe_count * (1 + sum(inner))  # type: ignore[arg-type]
        return total

    @property
    def top_signature(self) -> list[TopArg]:
        """Fixed Allo builds: the region's parameters in declaration order."""
        return _with_bundles(self.params)

    @property
    def legacy_signature(self) -> list[LegacyArg]:
        """Older builds: kernel-appearance order, merging equal local parameter names."""
        args: dict[str, LegacyArg] = {}
        for kernel in self.kernels:
            for kp in kernel.params:
                if kp.bound_to is None:
                    continue
                arg = args.setdefault(kp.name, LegacyArg(kp.name, kernel.name, []))
                if kp.bound_to not in arg.params:
                    arg.params.append(kp.bound_to)
        return list(args.values())

    @property
    def legacy_order(self) -> list[str]:
        """Region parameter names in the order older builds compile the top function."""
        return [a.params[0] for a in self.legacy_signature]

    def signature_for(self, allo_build: str) -> list[RegionParam]:
        """The parameters a caller must pass, in order, for the given build."""
        if allo_build == "legacy":
            by_name = {p.name: p for p in self.params}
            return [by_name[n] for n in self.legacy_order if n in by_name]
        return list(self.params)


def _with_bundles(params: list[RegionParam]) -> list[TopArg]:
    out, arrays = [], 0
    for i, p in enumerate(params, 1):
        bundle = None
        if p.type is None or not p.type.is_scalar:
            bundle = f"gmem{arrays}"
            arrays += 1
        out.append(TopArg(i, p, bundle))
    return out


@dataclass
class CallArg:
    text: str
    name: str | None  # the bare name passed, if any
    range: Range
    keyword: str | None = None
    starred: bool = False


@dataclass
class ModuleCall:
    """`mod(a, b, c)` where `mod = df.build(region, ...)`."""

    module: str
    region: Region = field(repr=False)
    range: Range  # the callee name
    call_range: Range
    args: list[CallArg]
    build_target: str | None
    build_mode: str | None


@dataclass
class Build:
    """`mod = df.build(region, target=..., mode=...)`."""

    module: str | None
    region: Region = field(repr=False)
    range: Range
    target: str | None  # None when not a literal; the default is "vitis_hls"
    mode: str | None
    has_num_output_args: bool = False
    passed: tuple[str, ...] = ()  # the parameters given, by name or position ("**" for `**opts`)
    scope_path: tuple[str, ...] = ()  # enclosing functions of the build call, outermost first


@dataclass
class Function:
    """A module-level function (not a region): a test may build and run a region in it."""

    name: str
    range: Range  # the name
    def_range: Range


@dataclass
class SyntaxProblem:
    message: str
    range: Range


@dataclass(frozen=True)
class Partial:
    """A file past the size bound: only its first `analysed_lines` lines were analysed."""

    analysed_lines: int
    analysed_chars: int
    total_lines: int
    total_chars: int
    bound: int  # characters


@dataclass
class FileModel:
    regions: list[Region] = field(default_factory=list)
    builds: list[Build] = field(default_factory=list)
    functions: list[Function] = field(default_factory=list)  # module level, regions excluded
    calls: list[ModuleCall] = field(default_factory=list)
    syntax_errors: list[SyntaxProblem] = field(default_factory=list)
    partial: Partial | None = None  # set when the file is larger than the analysis bound
    string_layouts: list[RemovedSyntax] = field(default_factory=list)  # `Layout("S0R")`, anywhere

    # Grouped views of the lists above, made on first use (rules ask once per region: a scan
    # each time is quadratic in a large file) and made again if a list has grown since.
    _groups: dict = field(default_factory=dict, repr=False, compare=False)

    def builds_of(self, region: Region) -> list[Build]:
        return list(self._grouped("builds_of", self.builds, lambda b: (id(b.region),)).get(id(region), ()))

    def calls_of(self, region: Region) -> list[ModuleCall]:
        return list(self._grouped("calls_of", self.calls, lambda c: (id(c.region),)).get(id(region), ()))

    def callers_of(self, region: Region) -> list[Region]:
        """The regions whose kernels call `region`, once per call (definition order)."""
        return list(self._grouped("callers_of", self.regions, _calls_made).get(id(region), ()))

    def function(self, name: str) -> Function | None:
        return next((f for f in self.functions if f.name == name), None)

    def module_region(self, name: str) -> Region | None:
        """The region named `name` defined at module level (not inside a function): what a job
        target, a lens and an MLIR view name."""
        return next((r for r in self.regions if r.name == name and not r.scope_path), None)

    def builds_in(self, function: str) -> list[Build]:
        """`df.build` calls inside a module-level function (nested functions included)."""
        return list(self._grouped("builds_in", self.builds, lambda b: (b.scope_path[:1],)).get((function,), ()))

    def _grouped(self, name: str, items: list, keys) -> dict:
        """`items` grouped by each of `keys(item)` (an item may be in several groups, or none)."""
        made = self._groups.get(name)
        if made is None or made[0] != len(items):
            groups: dict = {}
            for item in items:
                for key in keys(item):
                    groups.setdefault(key, []).append(item)
            made = self._groups[name] = (len(items), groups)
        return made[1]


def _calls_made(region: Region) -> list[int]:
    """The regions a region's kernels call, by identity, once per call."""
    return [id(sub) for k in region.kernels for sub in k.subregions]
