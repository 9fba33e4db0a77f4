"""ADF040: rewrite removed Allo syntax in its modern spelling.

- `pipe = df.pipe(dtype=T, shape=(), depth=4)` -> `pipe: Stream[T, 4]` (importing `Stream`);
- `Layout("S0R")` -> `[S(0), R]`;
- a kernel's `x: stateful(T)` -> `x: T @ Stateful`, `x: T @ stateful` -> `x: T @ Stateful`
  (importing `Stateful`, in place of `stateful` when nothing else uses it: importing a name
  `allo.ir.types` no longer has fails);
- a parameter-less region -> region parameters bound with `args=[...]`: the region takes the
  union of its kernels' parameters, each kernel binds its own, and renames them `local_<name>`
  (a kernel parameter may not shadow a region parameter).
"""

from __future__ import annotations

import libcst as cst

from allo_lsp.analysis import Problem
from allo_lsp.analysis.model import FileModel, Kernel, Range
from allo_lsp.ide.fixes import names
from allo_lsp.ide.fixes.base import Fix, Unavailable, counted, region_of
from allo_lsp.ide.fixes.imports import ensure_imported, rename_imported
from allo_lsp.ide.fixes.source import Source
from allo_lsp.ide.types import TextEdit


def modernize(source: Source, model: FileModel, problem: Problem) -> Fix:
    kind = problem.data.get("kind")
    if kind == "df.pipe":
        return _pipe(source, problem)
    if kind == "string layout":
        return _layout(source, model, problem)
    if kind == "parameter-less region":
        return _parameterless(source, model, problem)
    if kind in ("stateful()", "@ stateful"):
        return _stateful(source, problem)
    raise Unavailable(f"no fix for {kind!r}")


def _pipe(source: Source, problem: Problem) -> Fix:
    replacement = problem.data.get("replacement")
    statement = source.find(cst.Assign, problem.range)
    if not replacement or len(statement.targets) != 1 or not isinstance(statement.value, cst.Call):
        raise Unavailable("no single stream to declare")
    # `df.pipe(dtype, shape=(), depth=2)`: the replacement has no place for a block's shape.
    args = statement.value.args
    shapes = [a.value for a in args if a.keyword is not None and a.keyword.value == "shape"]
    shapes += [a.value for a in args[1:2] if a.keyword is None]
    if any(not (isinstance(s, cst.Tuple) and not s.elements) for s in shapes):
        raise Unavailable("a stream of blocks: the replacement would drop its shape")
    edits = [source.replace(problem.range, replacement)]
    edits += ensure_imported(source, "allo.ir.types", "Stream")
    return Fix(f"Migrate df.pipe to '{replacement}'", edits, safe=True)  # the same stream, spelled anew


def _stateful(source: Source, problem: Problem) -> Fix:
    replacement = problem.data.get("replacement")
    if not replacement:
        raise Unavailable("no type to mark stateful")
    edits = [source.replace(problem.range, replacement)]
    others = [
        n
        for n in source.positions
        if isinstance(n, cst.Name) and n.value == "stateful" and not _within(source.range(n), problem.range)
    ]
    # The import's own `stateful` is one of them: any other use keeps the import.
    renamed = rename_imported(source, "allo.ir.types", "stateful", "Stateful") if len(others) <= 1 else None
    edits += renamed if renamed is not None else ensure_imported(source, "allo.ir.types", "Stateful")
    return Fix(f"Write '{replacement}'", edits, safe=True)  # the same state, spelled anew


def _within(inner: Range, outer: Range) -> bool:
    return outer.start <= inner.start and inner.end <= outer.end


def _layout(source: Source, model: FileModel, problem: Problem) -> Fix:
    # The model knows when the string was not a layout at all; the problem then only guesses.
    old = next((s for s in model.string_layouts if s.range == problem.range), None)
    if old is None or old.replacement is None:
        raise Unavailable("not a string this fix can translate")
    written = source.text_at(old.range)
    return Fix(f"Replace {written} with {old.replacement}", [source.replace(old.range, old.replacement)], safe=True)


def _parameterless(source: Source, model: FileModel, problem: Problem) -> Fix:
    region = region_of(model, problem)
    fn = source.function(region.range)
    if names.params(fn):
        raise Unavailable("the region has parameters")
    declared: dict[str, str] = {}  # region parameter -> annotation, in appearance order
    edits: list[TextEdit] = []
    kernels = 0
    for kernel in region.kernels:
        kfn = source.function(kernel.range)
        params = names.params(kfn)
        if not params:
            continue
        if kernel.args is not None:
            raise Unavailable(f"kernel '{kernel.name}' already has args=")
        for p in params:
            if p.annotation is None:
                raise Unavailable(f"'{p.name.value}' has no type to give the region parameter")
            declared.setdefault(p.name.value, source.text_of(p.annotation.annotation))
        edits.append(_bind(source, kernel, ", ".join(p.name.value for p in params)))
        taken = names.taken(source, model, kfn)
        for p in params:
            new = names.fresh(f"local_{p.name.value}", taken)
            taken.add(new)
            edits += names.rename(source, kfn, p.name.value, new)
        kernels += 1
    if not declared:
        raise Unavailable("no kernel parameters to declare")
    signature = ", ".join(f"{name}: {ann}" for name, ann in declared.items())
    edits.append(source.insert(source.range(fn.params).start, signature))
    title = (
        f"Migrate {region.name}() to {region.name}({', '.join(declared)}) "
        f"with args=[...] on {counted(kernels, 'kernel')}"
    )
    # The region takes parameters it did not: every caller has to pass them.
    return Fix(title, edits, safe=False)


def _bind(source: Source, kernel: Kernel, args: str) -> TextEdit:
    """`args=[...]` right after `mapping=...`, where the spec writes it."""
    decorator = source.find(cst.Decorator, kernel.decorator_range).decorator
    keywords = decorator.args if isinstance(decorator, cst.Call) else ()
    mapping = next((a for a in keywords if a.keyword is not None and a.keyword.value == "mapping"), None)
    if mapping is None:
        raise Unavailable(f"kernel '{kernel.name}' has no mapping= (ADF010) to put args= after")
    return source.insert(source.range(mapping).end, f", args=[{args}]")
