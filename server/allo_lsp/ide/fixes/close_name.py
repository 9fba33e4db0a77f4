"""ADF096: a name nothing binds, read or called, that is a typo of one name in scope (`totl` for
`total`) becomes that name.

The names in scope are the kernel's parameters and locals, those of the functions around it (the
region's parameters, streams and locals) and the module's. A candidate is one close enough
(`difflib`'s ratio of 0.8 or more) whose text analyses again with that problem gone and no new
one: of a type the statement builds with, bound where it is read. Only a single candidate that
passes is offered; two would be a guess between them.
"""

from __future__ import annotations

import difflib
from collections import Counter

import libcst as cst

from allo_lsp.analysis import Problem, analyze
from allo_lsp.analysis.model import FileModel
from allo_lsp.analysis.walk import walk
from allo_lsp.ide.fixes.base import Fix, Unavailable, kernel_of, region_of
from allo_lsp.ide.fixes.source import Source

_CLOSE = 0.8


def closest_bound_name(source: Source, model: FileModel, problem: Problem) -> Fix:
    if problem.message.startswith("Variable "):
        raise Unavailable("`acc += v` of a name not declared: its declaration is missing, not its spelling")
    kernel = source.function(kernel_of(region_of(model, problem), problem.data.get("kernel")).range)
    name = _name_at(source, problem)
    scopes = [*_functions_around(source.module, kernel), kernel]
    candidates = set().union(*(_bound_in(scope) for scope in scopes)) - {name.value}
    close = difflib.get_close_matches(name.value, sorted(candidates), n=5, cutoff=_CLOSE)
    before = Counter(p.code for p in analyze(source.text).problems)
    building = [c for c in close if _mends(source, name, c, before)]
    if len(building) != 1:
        raise Unavailable(f"{len(building)} names in scope close to {name.value!r} that build")
    (new,) = building
    # Unsafe: a guess at what the user meant, though the one the design builds with.
    # The title names only the new name: the diagnostic is on the old one.
    return Fix(f"Correct the name to '{new}'", [source.replace(source.range(name), new)])


def _name_at(source: Source, problem: Problem) -> cst.Name:
    """The name read (`Unsupported Name`), or the name called (`Unsupported function call`)."""
    try:
        return source.find(cst.Name, problem.range)
    except Unavailable:
        func = source.find(cst.Call, problem.range).func
    if not isinstance(func, cst.Name):
        raise Unavailable("a method, not a name")  # `x.f()`: what `x` has is not known here
    return func


def _mends(source: Source, name: cst.Name, new: str, before: Counter) -> bool:
    after = Counter(p.code for p in analyze(source.edited([source.replace(source.range(name), new)])).problems)
    return after["ADF096"] < before["ADF096"] and all(after[code] <= before[code] for code in after)


def _functions_around(module: cst.Module, kernel: cst.FunctionDef) -> list[cst.CSTNode]:
    """The module and each function that holds `kernel`, outermost first."""
    path: list[cst.CSTNode] = []

    def holds(node: cst.CSTNode) -> bool:
        for child in node.children:
            if child is kernel or holds(child):
                if isinstance(child, cst.FunctionDef) and child is not kernel:
                    path.append(child)
                return True
        return False

    if not holds(module):
        raise Unavailable("the kernel is not in the module")
    return [module, *reversed(path)]


def _bound_in(scope: cst.CSTNode) -> set[str]:
    """The names `scope` (a module or a function) binds itself: parameters, assignments, loop
    variables, imports, functions and classes it defines; not those of the functions it defines."""
    names: set[str] = set()
    if isinstance(scope, cst.FunctionDef):
        names |= {
            p.name.value for p in (*scope.params.params, *scope.params.posonly_params, *scope.params.kwonly_params)
        }
    body = scope.body if isinstance(scope, cst.FunctionDef) else scope
    for node in walk(body, prune=(cst.FunctionDef, cst.ClassDef, cst.Lambda)):
        if node is not body and isinstance(node, cst.FunctionDef | cst.ClassDef):
            names.add(node.name.value)
        elif isinstance(node, cst.AssignTarget | cst.AnnAssign | cst.AugAssign | cst.For):
            names |= _target_names(node.target)
        elif isinstance(node, cst.ImportAlias):
            names.add(_imported_as(node))
    return names


def _target_names(target: cst.BaseExpression) -> set[str]:
    if isinstance(target, cst.Name):
        return {target.value}
    if isinstance(target, (cst.Tuple, cst.List)):
        return set().union(set(), *(_target_names(e.value) for e in target.elements))
    return set()


def _imported_as(alias: cst.ImportAlias) -> str:
    if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
        return alias.asname.name.value
    node = alias.name
    while isinstance(node, cst.Attribute):  # `import allo.dataflow` binds `allo`
        node = node.value
    return node.value if isinstance(node, cst.Name) else ""
