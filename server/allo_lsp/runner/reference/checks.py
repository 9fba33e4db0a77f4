"""The errors Allo reports when it builds a region (its type inference, `allo/ir/infer.py`, and
builder), with Allo's own messages, raised as BuildError at `df.build` (which then prints the
message and exits with status 1, as Allo does).

Only what Allo itself rejects is checked here; a region Allo builds is never refused.
"""

from __future__ import annotations

import ast

from allo_lsp.protocol.build_errors import LOOP_ITERATOR, loop_variables
from allo_lsp.protocol.type_names import printed_type
from allo_lsp.runner.reference.transform import BuildError
from allo_lsp.runner.reference.types import ArrayType, ScalarType

_KERNEL = "Invalid @df.kernel decorator on function '{k}': "


def printed(kind) -> str:
    """A type as Allo prints it in messages: `i32`, `ui1` (bool), `f32`, `fixed(12, 4)`."""
    if not isinstance(kind, ScalarType):
        return str(kind)
    return printed_type(kind.kind, kind.bits, kind.frac, fallback=kind.name)


def check_region(fdef: ast.FunctionDef, kernels: list[ast.FunctionDef], ns: dict, evaluate) -> None:
    region_types = {}
    for arg in fdef.args.posonlyargs + fdef.args.args:
        if arg.annotation is not None:
            region_types[arg.arg] = evaluate(arg.annotation)
    for kernel in kernels:
        _check_kernel(fdef, kernel, region_types, evaluate)


def _check_kernel(fdef, kernel: ast.FunctionDef, region_types: dict, evaluate) -> None:
    decorator = next(
        d for d in kernel.decorator_list if isinstance(d, ast.Call) and ast.unparse(d.func).endswith("kernel")
    )
    keywords = {k.arg: k.value for k in decorator.keywords}
    if "mapping" not in keywords:
        raise BuildError(_KERNEL.format(k=kernel.name) + "missing required 'mapping' parameter.", decorator.lineno)
    params = kernel.args.args
    for param in params:
        if param.arg in region_types:
            raise BuildError(
                f"Argument name '{param.arg}' conflicts with an existing symbol. "
                "Please choose a different name to avoid the conflict.",
                param.lineno,
            )
    if not region_types:
        return  # the older parameter-less region: kernels bind their parameters by name
    bound = keywords.get("args")
    names = (
        [e.id if isinstance(e, ast.Name) else ast.unparse(e) for e in bound.elts] if isinstance(bound, ast.List) else []
    )
    if len(names) != len(params):
        raise BuildError(
            _KERNEL.format(k=kernel.name) + f"'args' length mismatch (expected {len(params)}, got {len(names)}).",
            decorator.lineno,
        )
    for name, param in zip(names, params):
        region_type = region_types.get(name)
        if isinstance(region_type, ScalarType):
            raise BuildError(
                f"Scalar '{name}' cannot appear in `args=[...]` on @df.kernel '{kernel.name}'. Scalars are captured "
                "from the enclosing region scope automatically; remove it from args, or use a 1-element array "
                f"({name}: {printed(region_type)}[1]) instead.",
                decorator.lineno,
            )
        if param.annotation is None or region_type is None:
            continue
        kernel_type = evaluate(param.annotation)
        if isinstance(region_type, ArrayType) and kernel_type != region_type:
            raise BuildError(f"df.kernel argument {param.arg} do not match {name}.", param.lineno)
    for variable in loop_variables(kernel):
        # The kernel is typed in its region's scope (`ctx.scopes`), whose parameters are symbols:
        # `visit_all_for` asserts a loop variable is none.
        if variable.id in region_types:
            raise BuildError(LOOP_ITERATOR, variable.lineno)


def argument_directions(region_args: list[str], kernels: list[ast.FunctionDef], legacy: bool) -> list[str] | None:
    """How the top function uses each argument, as Allo's `analyze_arg_load_store` classifies
    it: "in" (only read), "out" (only written), "both", or "none"; None when a kernel passes a
    bound array on to a call (a sub-region, a helper), which this reading of the source does not
    follow: no check is then made, rather than a false error."""
    reads: dict[str, bool] = {a: False for a in region_args}
    writes: dict[str, bool] = {a: False for a in region_args}
    for kernel in kernels:
        decorator = next(
            d for d in kernel.decorator_list if isinstance(d, ast.Call) and ast.unparse(d.func).endswith("kernel")
        )
        keywords = {k.arg: k.value for k in decorator.keywords}
        params = [p.arg for p in kernel.args.args]
        if legacy:
            bound = dict(zip(params, params))
        else:
            names = (
                [e.id for e in keywords["args"].elts if isinstance(e, ast.Name)]
                if isinstance(keywords.get("args"), ast.List)
                else []
            )
            bound = dict(zip(params, names))
        use = _uses(kernel, set(bound))
        if use is None:
            return None
        for param, (read, written) in use.items():
            top = bound[param]
            if top in reads:
                reads[top] |= read
                writes[top] |= written
    return [("both" if reads[a] else "out") if writes[a] else ("in" if reads[a] else "none") for a in region_args]


def _uses(kernel: ast.FunctionDef, params: set) -> dict | None:
    use = {p: [False, False] for p in params}
    stored = set()
    for node in ast.walk(kernel):
        targets = []
        if isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            base = target
            while isinstance(base, ast.Subscript):
                base = base.value
            if isinstance(base, ast.Name) and base.id in params and base is not target:
                use[base.id][1] = True
                stored.add(id(base))
                if isinstance(node, ast.AugAssign):
                    use[base.id][0] = True
        if isinstance(node, ast.Call):
            callee = ast.unparse(node.func)
            library = callee.startswith(("allo.", "df.", "dsl.")) or callee.endswith((".put", ".get"))
            for arg in node.args:
                if isinstance(arg, ast.Name) and arg.id in params and not library:
                    return None  # passed on: a sub-region or helper may write it
    for node in ast.walk(kernel):
        if (
            isinstance(node, ast.Name)
            and node.id in params
            and isinstance(node.ctx, ast.Load)
            and id(node) not in stored
        ):
            use[node.id][0] = True
    return {p: tuple(v) for p, v in use.items()}


def vitis_output_order(directions: list[str] | None) -> None:
    """Allo's vitis_hls backend, without `configs={"num_output_args": n}`: an argument only read
    may not follow one that is written (allo/backend/hls.py raises RuntimeError)."""
    if directions is None:
        return
    outputs = 0
    for io in directions:
        if io in ("both", "out"):
            outputs += 1
        elif io == "in" and outputs > 0:
            raise RuntimeError("Output arguments must appear at the end.")
