"""From a libcst module to the semantic model (`model.FileModel`).

Walks every scope of the file in source order, recording the bindings Allo would see (`scopes`),
each `@df.region()` with its kernels and streams (`regions`), and each `df.build(...)` and call of
the built module. Tolerant by design: half-typed code yields a partial model, never an exception.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import libcst as cst

from allo_lsp.analysis.chunks import Positions
from allo_lsp.analysis.evaluate import (
    UNKNOWN,
    ConstExprType,
    Evaluator,
    FunctionRef,
    ModuleRef,
    RegionRef,
    Scope,
    Symbol,
    TypeParam,
    string_value,
)
from allo_lsp.analysis.kernel_body import scan_kernel_body
from allo_lsp.analysis.model import (
    ArgName,
    Build,
    CallArg,
    Direction,
    FileModel,
    Function,
    Kernel,
    KernelParam,
    ModuleCall,
    Range,
    Region,
    RegionParam,
    RemovedSyntax,
    Stream,
)
from allo_lsp.analysis.types import AlloType, DType, StreamType
from allo_lsp.analysis.walk import walk


def extract(module: cst.Module, positions: Positions, cache: dict | None = None) -> FileModel:
    """`cache`: kept between analyses of one document (see `_Extractor._top_level`)."""
    return _Extractor(module, positions, cache).run()


@dataclass
class _Extracted:
    """What extracting one module-level definition added, and the module-level names it read."""

    deps: list[tuple[str, int, object]]  # (name, line, signature)
    rebinds: list[tuple[str, int, object]]  # (name, line, value) bound in the module scope
    added: dict[str, list]  # FileModel list name -> items


_MODEL_LISTS = ("regions", "builds", "calls", "functions", "string_layouts")


class _Extractor:
    def __init__(self, module: cst.Module, positions, cache: dict | None = None) -> None:
        self.module = module
        self.positions = positions
        self.evaluator = Evaluator(module.code_for_node)
        self.model = FileModel()
        self.cache = cache if cache is not None else {}
        self.used: dict = {}  # the entries of `cache` this run used or made
        self._builds_by_range: dict[Range, Build] = {}
        self._builds_indexed = 0

    def run(self) -> FileModel:
        scope = Scope()
        self._block(self.module.body, scope, ())
        self.cache.clear()
        self.cache.update(self.used)
        return self.model

    def _top_level(self, stmt: cst.CSTNode, scope: Scope) -> None:
        """A module-level statement, extracted again only when its text, its line or a
        module-level name it read changed (its chunk's nodes are reused while its text is
        unchanged): while the user types in one kernel, every other statement is replayed."""
        key = (stmt, self.line(stmt))
        cached = self.cache.get(key)
        if cached is not None and all(scope.signature(n, line) == sig for n, line, sig in cached.deps):
            if scope.recorder is not None:  # inside another top-level statement being recorded
                scope.recorder.extend((n, line) for n, line, _ in cached.deps)
            for name, line, value in cached.rebinds:
                scope.bind(name, line, value=value)
            for name, items in cached.added.items():
                getattr(self.model, name).extend(items)
            self.used[key] = cached
            return
        sizes = {name: len(getattr(self.model, name)) for name in _MODEL_LISTS}
        reads: list = []
        bound: list = []
        outer, scope.recorder = scope.recorder, reads
        outer_journal, scope.journal = scope.journal, bound
        try:
            if isinstance(stmt, cst.FunctionDef):
                self._function(stmt, scope, ())
            else:
                self._statement(stmt, scope, ())
        finally:
            scope.recorder, scope.journal = outer, outer_journal
            if outer is not None:
                outer.extend(reads)
            if outer_journal is not None:
                outer_journal.extend(bound)
        rebinds = [(name, b.line, b.value) for name, b in bound]
        added = {name: getattr(self.model, name)[sizes[name]:] for name in _MODEL_LISTS}
        deps = [(n, line, scope.signature(n, line)) for n, line in dict.fromkeys(reads)]
        self.used[key] = _Extracted(deps, rebinds, added)

    # -- positions -------------------------------------------------------------------------

    def range(self, node: cst.CSTNode) -> Range:
        pos, start = self.positions.get(node)
        return Range.of(pos.start.line - 1 + start, pos.start.column, pos.end.line - 1 + start, pos.end.column)

    def line(self, node: cst.CSTNode) -> int:
        """0-based line of a node, the unit `Scope` orders bindings by."""
        pos, start = self.positions.get(node)
        return pos.start.line - 1 + start

    def text(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)

    # -- scopes ----------------------------------------------------------------------------

    def _block(self, body, scope: Scope, path: tuple[str, ...]) -> None:
        """Record a scope's bindings (nested if/for/with/try bodies included), then visit it."""
        self._bind_all(body, scope)
        self._visit(body, scope, path)

    def _bind_all(self, body, scope: Scope) -> None:
        for stmt in _flatten(body):
            self._bind_statement(stmt, scope)
            if isinstance(stmt, (cst.If, cst.For, cst.While, cst.With, cst.Try)):
                self._bind_all(_compound_bodies(stmt), scope)

    def _visit(self, body, scope: Scope, path: tuple[str, ...]) -> None:
        for stmt in _flatten(body):
            if scope.parent is None and not isinstance(stmt, cst.ClassDef):
                self._top_level(stmt, scope)
            elif isinstance(stmt, cst.FunctionDef):
                self._function(stmt, scope, path)
            elif isinstance(stmt, cst.ClassDef):
                inner = Scope(scope, self.line(stmt))
                self._block(_body(stmt), inner, path + (stmt.name.value,))
            else:
                self._statement(stmt, scope, path)

    def _bind_statement(self, stmt: cst.CSTNode, scope: Scope) -> None:
        line = self.line(stmt)
        if isinstance(stmt, cst.Assign):
            for target in stmt.targets:
                self._bind_target(target.target, stmt.value, scope, line, ())
        elif isinstance(stmt, cst.AnnAssign):
            if isinstance(stmt.target, cst.Name):
                value = stmt.value
                scope.bind(stmt.target.value, line, node=value) if value else scope.bind_unknown(
                    stmt.target.value, line
                )
        elif isinstance(stmt, cst.AugAssign):
            if isinstance(stmt.target, cst.Name):
                scope.bind_unknown(stmt.target.value, line)
        elif isinstance(stmt, (cst.Import, cst.ImportFrom)):
            self._bind_import(stmt, scope, line)
        elif isinstance(stmt, (cst.For, cst.With)):
            for name in _target_names(stmt):
                scope.bind_unknown(name, line)
        elif isinstance(stmt, cst.FunctionDef):
            scope.bind(stmt.name.value, line, value=FunctionRef(stmt, scope))
        elif isinstance(stmt, cst.ClassDef):
            scope.bind_unknown(stmt.name.value, line)

    def _bind_target(self, target, value, scope: Scope, line: int, path: tuple[int, ...]) -> None:
        if isinstance(target, cst.Name):
            scope.bind(target.value, line, node=value, path=path)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for i, el in enumerate(target.elements):
                inner = el.value
                if isinstance(el, cst.StarredElement):
                    if isinstance(inner, cst.Name):
                        scope.bind_unknown(inner.value, line)
                    continue
                if isinstance(value, (cst.Tuple, cst.List)) and i < len(value.elements):
                    self._bind_target(inner, value.elements[i].value, scope, line, path)
                else:
                    self._bind_target(inner, value, scope, line, path + (i,))

    def _bind_import(self, stmt, scope: Scope, line: int) -> None:
        if isinstance(stmt, cst.Import):
            for alias in stmt.names:
                qual = _dotted(alias.name)
                if alias.asname and isinstance(alias.asname.name, cst.Name):
                    scope.bind(alias.asname.name.value, line, value=Symbol(qual))
                elif qual:
                    scope.bind(qual.split(".")[0], line, value=Symbol(qual.split(".")[0]))
            return
        if isinstance(stmt.names, cst.ImportStar):
            return
        origin = _dotted(stmt.module) if stmt.module else ""
        for alias in stmt.names:
            name = _dotted(alias.name)
            local = alias.asname.name.value if alias.asname and isinstance(alias.asname.name, cst.Name) else name
            if not local:
                continue
            value: Any = Symbol(f"{origin}.{name}")
            if origin.startswith("allo"):
                # `from allo.ir.types import int32, Stream`: the meaning Allo gives the name.
                fallback = self.evaluator.lookup(name, Scope(), 0)
                if fallback is not UNKNOWN:
                    value = fallback
                elif origin == "allo" and name == "dataflow":
                    value = Symbol("allo.dataflow")
            scope.bind(local, line, value=value)

    def _function(self, fn: cst.FunctionDef, scope: Scope, path: tuple[str, ...]) -> None:
        for dec in fn.decorators:
            if self._is_df(dec.decorator, "region", scope, self.line(fn)):
                region = self._region(fn, dec, scope, path)
                scope.bind(fn.name.value, self.line(fn), value=RegionRef(region))
                return
        inner = Scope(scope, self.line(fn))
        for p in _all_params(fn.params):
            inner.bind_unknown(p.name.value, self.line(fn))
        if not path:
            self.model.functions.append(Function(fn.name.value, self.range(fn.name), self.range(fn)))
        self._block(_body(fn), inner, path + (fn.name.value,))

    # -- builds and calls of built modules -------------------------------------------------

    def _statement(self, stmt: cst.CSTNode, scope: Scope, path: tuple[str, ...]) -> None:
        line = self.line(stmt)
        if isinstance(stmt, (cst.Assign, cst.AnnAssign)) and stmt.value is not None:
            build = self._build(stmt.value, scope, line, path)
            targets = stmt.targets if isinstance(stmt, cst.Assign) else [stmt]
            if build is not None:
                names = [t.target.value for t in targets if isinstance(t.target, cst.Name)]
                build.module = names[0] if names else None
                for name in names:
                    scope.bind(name, line, value=ModuleRef(build))
        calls = _calls_in(stmt)
        calls.sort(key=lambda c: self.range(c).start)  # field order is not source order (`a if b else c`)
        for call in calls:
            self._maybe_build_or_call(call, scope, line, path)
        if isinstance(stmt, (cst.If, cst.For, cst.While, cst.With, cst.Try)):
            self._visit(_compound_bodies(stmt), scope, path)

    def _maybe_build_or_call(self, call: cst.Call, scope: Scope, line: int, path: tuple[str, ...]) -> None:
        self._string_layout(call)
        if isinstance(call.func, cst.Name):
            value = self.evaluator.lookup(call.func.value, scope, line)
            if isinstance(value, ModuleRef):
                self.model.calls.append(self._module_call(call, value.build))
        elif self._is_df(call.func, "build", scope, line) and self._build_at(self.range(call)) is None:
            self._build(call, scope, line, path)

    def _build(self, node: cst.BaseExpression, scope: Scope, line: int, path: tuple[str, ...]) -> Build | None:
        if not isinstance(node, cst.Call) or not self._is_df(node.func, "build", scope, line):
            return None
        positional = [a for a in node.args if a.keyword is None]
        if not positional or not isinstance(positional[0].value, cst.Name):
            return None
        ref = self.evaluator.lookup(positional[0].value.value, scope, line)
        if not isinstance(ref, RegionRef):
            return None
        keywords = {a.keyword.value: a.value for a in node.args if a.keyword}
        found = self._build_at(self.range(node))
        if found is not None:
            return found
        configs = keywords.get("configs")
        build = Build(
            module=None,
            region=ref.region,
            range=self.range(node),
            target=_string(keywords.get("target")),
            mode=_string(keywords.get("mode")),
            has_num_output_args=configs is not None and "num_output_args" in self.text(configs),
            scope_path=path,
        )
        if "target" not in keywords:
            build.target = "vitis_hls"
        self.model.builds.append(build)
        return build

    def _build_at(self, where: Range) -> Build | None:
        """The build already recorded at `where` (an assignment's value is seen twice: as the
        assignment and as a call in it). Indexed as builds are added, replayed ones included."""
        builds = self.model.builds
        for b in builds[self._builds_indexed :]:
            self._builds_by_range.setdefault(b.range, b)
        self._builds_indexed = len(builds)
        return self._builds_by_range.get(where)

    def _module_call(self, call: cst.Call, build: Build) -> ModuleCall:
        args = []
        for a in call.args:
            args.append(
                CallArg(
                    text=self.text(a.value),
                    name=a.value.value if isinstance(a.value, cst.Name) else None,
                    range=self.range(a.value),
                    keyword=a.keyword.value if a.keyword else None,
                    starred=bool(a.star),
                )
            )
        return ModuleCall(
            module=call.func.value,  # type: ignore[union-attr]
            region=build.region,
            range=self.range(call.func),
            call_range=self.range(call),
            args=args,
            build_target=build.target,
            build_mode=build.mode,
        )

    def _is_df(self, node: cst.BaseExpression, attr: str, scope: Scope, line: int) -> bool:
        """Is `node` `df.<attr>` / `allo.dataflow.<attr>` (or `<attr>` imported from there)?"""
        if isinstance(node, cst.Call):
            node = node.func
        if isinstance(node, cst.Name):
            value = self.evaluator.lookup(node.value, scope, line)
            return value == Symbol(f"allo.dataflow.{attr}")
        if not isinstance(node, cst.Attribute) or node.attr.value != attr:
            return False
        base = node.value
        if isinstance(base, cst.Name):
            value = self.evaluator.lookup(base.value, scope, line)
            # An unimported `df` still reads as Allo's: snippets often leave imports out.
            return value == Symbol("allo.dataflow") or (base.value == "df" and value is UNKNOWN)
        return _dotted(base) == "allo.dataflow"

    # -- regions ---------------------------------------------------------------------------

    def _region(self, fn: cst.FunctionDef, dec: cst.Decorator, scope: Scope, path) -> Region:
        line = self.line(fn)
        rscope = Scope(scope, line)
        generics = []
        if fn.type_parameters is not None:
            for tp in fn.type_parameters.params:
                name = getattr(tp.param, "name", None)
                if isinstance(name, cst.Name):
                    generics.append(name.value)
                    rscope.bind(name.value, line, value=TypeParam(name.value))
        params = []
        for p in _all_params(fn.params):
            ann = p.annotation.annotation if p.annotation else None
            typ = self.evaluator.annotation(ann, rscope, line) if ann is not None else None
            params.append(
                RegionParam(
                    name=p.name.value,
                    range=self.range(p.name),
                    annotation=self.text(ann) if ann is not None else "",
                    annotation_range=self.range(ann) if ann is not None else None,
                    type=typ if isinstance(typ, AlloType) else None,
                )
            )
            rscope.bind_unknown(p.name.value, line)
        annotations = [p.annotation.annotation for p in _all_params(fn.params) if p.annotation]
        region = Region(
            name=fn.name.value,
            range=self.range(fn.name),
            decorator_range=self.range(dec),
            def_range=self.range(fn),
            params=params,
            kernels=[],
            streams=[],
            generic_params=generics,
            params_range=self.range(fn.params),
            scope_path=path,
        )
        self.model.regions.append(region)
        for ann in annotations:
            self._annotation_layouts(ann)
        body = list(_flatten(_body(fn)))
        for stmt in body:
            self._bind_statement(stmt, rscope)
        for stmt in body:
            if isinstance(stmt, cst.AnnAssign):
                self._stream_or_const(stmt, rscope, region)
            elif isinstance(stmt, cst.Assign):
                self._legacy_pipe(stmt, rscope, region)
            elif isinstance(stmt, cst.FunctionDef):
                dec = next(
                    (d for d in stmt.decorators if self._is_df(d.decorator, "kernel", rscope, self.line(stmt))),
                    None,
                )
                if dec is not None:
                    region.kernels.append(self._kernel(stmt, dec, rscope, region))
        self._finish_region(region)
        return region

    def _stream_or_const(self, stmt: cst.AnnAssign, rscope: Scope, region: Region) -> None:
        if not isinstance(stmt.target, cst.Name):
            return
        ann = stmt.annotation.annotation
        root = _subscript_root(ann)
        if isinstance(root, cst.Call):  # `Stream(int32, 4)`: malformed, but meant as a stream
            root = root.func
        if not (isinstance(root, cst.Name) and root.value == "Stream"):
            return
        value = self.evaluator.annotation(ann, rscope, self.line(stmt))
        region.streams.append(
            Stream(
                name=stmt.target.value,
                range=self.range(stmt.target),
                annotation=self.text(ann),
                annotation_range=self.range(ann),
                type=value if isinstance(value, StreamType) else None,
                well_formed=_stream_form_ok(ann),
                has_value=stmt.value is not None,
            )
        )

    def _legacy_pipe(self, stmt: cst.Assign, rscope: Scope, region: Region) -> None:
        value, dims = self._legacy_array(stmt.value, rscope, self.line(stmt))
        if not (isinstance(value, cst.Call) and self._is_df(value.func, "pipe", rscope, self.line(stmt))):
            return
        for t in stmt.targets:
            if isinstance(t.target, cst.Name):
                region.streams.append(
                    Stream(
                        name=t.target.value,
                        range=self.range(t.target),
                        annotation=self.text(value),
                        annotation_range=self.range(value),
                        type=None,
                        legacy_pipe=True,
                        has_value=True,
                    )
                )
        # `df.pipe(dtype, shape=(), depth=2)`: each argument may be passed by position too.
        positional = [self.text(a.value) for a in value.args if a.keyword is None]
        passed = dict(zip(("dtype", "shape", "depth"), positional))
        passed |= {a.keyword.value: self.text(a.value) for a in value.args if a.keyword}
        dtype, depth = passed.get("dtype", "int32"), passed.get("depth", "2")
        names = [t.target.value for t in stmt.targets if isinstance(t.target, cst.Name)]
        replacement = f"{names[0]}: Stream[{dtype}, {depth}]{dims}" if names else None
        region.removed_syntax.append(RemovedSyntax("df.pipe", self.range(stmt), replacement))

    def _legacy_array(self, value, rscope: Scope, line: int) -> tuple[cst.BaseExpression, str]:
        """`df.array(df.pipe(...), shape=(P0, P1))`, the removed form of a stream array: the
        `df.pipe(...)` inside and the dimensions (`[P0, P1]`) its modern spelling takes."""
        if not (isinstance(value, cst.Call) and self._is_df(value.func, "array", rscope, line) and value.args):
            return value, ""
        shape = next((a.value for a in value.args if a.keyword and a.keyword.value == "shape"), None)
        if shape is None and len(value.args) > 1 and value.args[1].keyword is None:
            shape = value.args[1].value
        items = [e.value for e in shape.elements] if isinstance(shape, (cst.Tuple, cst.List)) else []
        dims = f"[{', '.join(self.text(i) for i in items)}]" if items else ""
        return value.args[0].value, dims

    def _kernel(self, fn: cst.FunctionDef, dec: cst.Decorator, rscope: Scope, region: Region) -> Kernel:
        line = self.line(fn)
        call = dec.decorator if isinstance(dec.decorator, cst.Call) else None
        keywords = [a for a in call.args if a.keyword] if call else []
        names = [a.keyword.value for a in keywords]  # type: ignore[union-attr]
        mapping = mapping_range = mapping_index = mapping_keyword_range = None
        if "mapping" in names:
            mapping_index = names.index("mapping")
            mapping_keyword_range = self.range(keywords[mapping_index])
            node = keywords[mapping_index].value
            mapping_range = self.range(node)
            value = self.evaluator.eval(node, rscope, line)
            if isinstance(value, int) and not isinstance(value, bool):
                value = (value,)
            if isinstance(value, tuple):
                mapping = tuple(v if isinstance(v, int) and not isinstance(v, bool) else None for v in value)
            elif isinstance(node, (cst.List, cst.Tuple)):
                mapping = tuple(None for _ in node.elements)
        args = args_range = None
        args_is_list = False
        if "args" in names:
            node = keywords[names.index("args")].value
            args_range = self.range(node)
            args_is_list = isinstance(node, cst.List)
            if args_is_list:
                args = [
                    ArgName(el.value.value if isinstance(el.value, cst.Name) and isinstance(el, cst.Element) else None,
                            self.range(el.value))
                    for el in node.elements
                ]
        kernel = Kernel(
            name=fn.name.value,
            range=self.range(fn.name),
            decorator_range=self.range(dec),
            mapping=mapping,
            mapping_range=mapping_range,
            mapping_keyword_index=mapping_index,
            mapping_keyword_range=mapping_keyword_range,
            args=args,
            args_range=args_range,
            args_is_list=args_is_list,
            body_range=self.range(fn.body),
        )
        kscope = Scope(rscope, line)
        for i, p in enumerate(_all_params(fn.params)):
            ann = p.annotation.annotation if p.annotation else None
            typ = self.evaluator.annotation(ann, rscope, line) if ann is not None else None
            self._annotation_layouts(ann)
            kp = KernelParam(
                name=p.name.value,
                range=self.range(p.name),
                annotation=self.text(ann) if ann is not None else "",
                annotation_range=self.range(ann) if ann is not None else None,
                type=typ if isinstance(typ, AlloType) else None,
                shadows=self._shadowed(p.name.value, rscope, region, line),
            )
            if args and i < len(args) and args[i].name and region.param(args[i].name):
                kp.bound_to = args[i].name
                kp.binding_range = args[i].range
            kernel.params.append(kp)
            kscope.bind_unknown(p.name.value, line)
        scan_kernel_body(fn, kernel, region, self, kscope)
        return kernel

    def _shadowed(self, name: str, rscope: Scope, region: Region, line: int) -> str | None:
        """What visible symbol a kernel parameter name would shadow in Allo's symbol table, which
        holds the region's names, the enclosing functions' and closures', and the module's globals
        as they are when the region is built (`A = ...` in a `__main__` block included)."""
        if region.param(name):
            return f"region parameter '{name}'"
        found = rscope.find(name, line)
        if found is None:
            return None
        binding, where = found
        if where is rscope:
            return f"'{name}' declared in region '{region.name}'"
        if isinstance(binding.value, (RegionRef, FunctionRef)):
            return f"function '{name}' (line {binding.line + 1})"
        if where.parent is not None and not _collected_local(self.evaluator.lookup(name, rscope, line)):
            return None
        return f"'{name}' (line {binding.line + 1})"

    def _string_layout(self, node: cst.CSTNode) -> None:
        """`Layout("S0R")`: the removed string form of `[S(0), R]`."""
        if not (isinstance(node, cst.Call) and _dotted(node.func).split(".")[-1] == "Layout" and node.args):
            return
        spec = _string(node.args[0].value)
        where = self.range(node)
        if spec is not None and all(r.range != where for r in self.model.string_layouts):
            self.model.string_layouts.append(RemovedSyntax("string layout", where, _layout_list(spec)))

    def _annotation_layouts(self, ann) -> None:
        if isinstance(ann, cst.BinaryOperation) and isinstance(ann.operator, cst.MatrixMultiply):
            self._string_layout(ann.right)

    def _finish_region(self, region: Region) -> None:
        for use in region.stream_uses:
            stream = region.stream(use.stream)
            if stream is not None:
                (stream.puts if use.op == "put" else stream.gets).append(use)
        for p in region.params:
            accesses = [(k.name, kp.access) for k in region.kernels for kp in k.params if kp.bound_to == p.name]
            accesses += [(k.name, k.captured[p.name]) for k in region.kernels if p.name in k.captured]
            p.kernels = list(dict.fromkeys(name for name, _ in accesses))
            reads = any(a.reads for _, a in accesses)
            writes = any(a.writes for _, a in accesses)
            if not accesses:
                p.direction = Direction.UNUSED
            elif writes:
                p.direction = Direction.INOUT if reads else Direction.OUT
            else:
                p.direction = Direction.IN
        if not region.params and any(k.params and k.args is None for k in region.kernels):
            region.removed_syntax.append(RemovedSyntax("parameter-less region", region.range))


def _collected_local(value: Any) -> bool:
    """Whether Allo puts a local of an enclosing function into the symbol table: it collects
    only ints, floats, lists, Allo types and functions from the calling frames
    (`allo/ir/utils.py: get_global_vars`), so `A = np.zeros(...)` in a test does not count."""
    return isinstance(value, (int, float, tuple, AlloType, DType, ConstExprType))


def _calls_in(stmt: cst.CSTNode) -> list[cst.Call]:
    """Calls in one statement, not descending into nested definitions nor into compound
    statements' bodies (they are visited as blocks of their own)."""
    nested = (cst.FunctionDef, cst.ClassDef, cst.IndentedBlock)
    return [node for node in walk(stmt, prune=nested) if isinstance(node, cst.Call)]


def _flatten(body):
    """Statements of a block, simple statements split out of their lines."""
    for stmt in body:
        if isinstance(stmt, cst.SimpleStatementLine):
            yield from stmt.body
        else:
            yield stmt


def _body(node) -> list:
    body = node.body
    if isinstance(body, cst.IndentedBlock):
        return list(body.body)
    if isinstance(body, cst.SimpleStatementSuite):
        return list(body.body)
    return []


def _compound_bodies(stmt) -> list:
    """Statements nested in if/for/while/with/try, in order, as one block."""
    out = list(_body(stmt))
    for attr in ("orelse", "finalbody"):
        extra = getattr(stmt, attr, None)
        while extra is not None:
            out += _body(extra)
            extra = getattr(extra, "orelse", None) if isinstance(extra, cst.If) else None
    for handler in getattr(stmt, "handlers", ()):
        out += _body(handler)
    return out


def _all_params(params: cst.Parameters) -> list[cst.Param]:
    out = list(params.posonly_params) + list(params.params) + list(params.kwonly_params)
    return out


def _target_names(stmt) -> list[str]:
    names: list[str] = []
    if isinstance(stmt, cst.For):
        nodes = [stmt.target]
    else:
        nodes = [item.asname.name for item in stmt.items if item.asname]
    while nodes:
        n = nodes.pop()
        if isinstance(n, cst.Name):
            names.append(n.value)
        elif isinstance(n, (cst.Tuple, cst.List)):
            nodes += [e.value for e in n.elements]
    return names


def _dotted(node) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr.value}" if base else ""
    return ""


def _string(node) -> str | None:
    return string_value(node) if isinstance(node, cst.SimpleString) else None


def _layout_list(spec: str) -> str | None:
    """`"S0R"` -> `[S(0), R]`; None when the string is not a layout."""
    out, i = [], 0
    while i < len(spec):
        if spec[i] == "R":
            out.append("R")
            i += 1
        elif spec[i] == "S" and i + 1 < len(spec) and spec[i + 1].isdigit():
            out.append(f"S({spec[i + 1]})")
            i += 2
        else:
            return None
    return f"[{', '.join(out)}]" if out else None


def _subscript_root(node):
    while isinstance(node, cst.Subscript):
        node = node.value
    return node


def _stream_form_ok(ann: cst.BaseExpression) -> bool:
    """`Stream[T, depth]` or `Stream[T, depth][dims...]`, nothing else."""
    node = ann
    if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Subscript):
        node = node.value
    return (
        isinstance(node, cst.Subscript)
        and isinstance(node.value, cst.Name)
        and len(node.slice) == 2
        and all(isinstance(el.slice, cst.Index) for el in node.slice)
    )
