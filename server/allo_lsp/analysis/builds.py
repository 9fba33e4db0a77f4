"""`df.build(region, ...)` and the calls of the module it returns (`mod(A, B)`), the facts the
build and call rules read: the build's target platform and mode, the call's arguments."""

from __future__ import annotations

import libcst as cst

from allo_lsp.analysis.context import Context
from allo_lsp.analysis.evaluate import ModuleRef, RegionRef, Scope
from allo_lsp.analysis.model import Build, CallArg, ModuleCall, Range
from allo_lsp.analysis.syntax import string
from allo_lsp.protocol.vocabulary import DEFAULT_PLATFORM

# The target platforms `df.build` accepts (`allo/dataflow.py`, then `Schedule.build`); the HLS ones
# write a project and hand it to a vendor's tool. Rules that depend on the target read these.
HLS_PLATFORMS = ("vhls", "vivado_hls", "vitis_hls", "pynq", "tapa", "ihls", "catapult", "xls", "xlscc")
PLATFORMS = ("simulator", "llvm", "aie", "aie-mlir", *HLS_PLATFORMS)
# `df.build`'s parameters after the region, in order: what a positional argument is.
_PARAMETERS = ("target", "mode", "project", "configs", "wrap_io")


class Builds:
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self._by_range: dict[Range, Build] = {}
        self._indexed = 0

    def assignment(self, stmt: cst.Assign | cst.AnnAssign, scope: Scope, line: int, path: tuple[str, ...]) -> None:
        """`mod = df.build(top, ...)`: the build, named after the module it binds."""
        build = self._build(stmt.value, scope, line, path)
        if build is None:
            return
        targets = stmt.targets if isinstance(stmt, cst.Assign) else [stmt]
        names = [t.target.value for t in targets if isinstance(t.target, cst.Name)]
        build.module = names[0] if names else None
        for name in names:
            scope.bind(name, line, value=ModuleRef(build))

    def call(self, call: cst.Call, scope: Scope, line: int, path: tuple[str, ...]) -> None:
        """A call of a built module, or a `df.build(...)` not assigned to a name."""
        ctx = self.ctx
        if isinstance(call.func, cst.Name):
            value = ctx.evaluator.lookup(call.func.value, scope, line)
            if isinstance(value, ModuleRef):
                ctx.model.calls.append(self._module_call(call, value.build))
        elif ctx.is_df(call.func, "build", scope, line) and self._at(ctx.range(call)) is None:
            self._build(call, scope, line, path)

    def _build(self, node: cst.BaseExpression, scope: Scope, line: int, path: tuple[str, ...]) -> Build | None:
        ctx = self.ctx
        if not isinstance(node, cst.Call) or not ctx.is_df(node.func, "build", scope, line):
            return None
        positional = [a for a in node.args if a.keyword is None]
        if not positional or not isinstance(positional[0].value, cst.Name):
            return None
        ref = ctx.evaluator.lookup(positional[0].value.value, scope, line)
        if not isinstance(ref, RegionRef):
            return None
        keywords = {a.keyword.value: a.value for a in node.args if a.keyword}
        for name, arg in zip(_PARAMETERS, [a for a in positional[1:] if not a.star]):
            keywords.setdefault(name, arg.value)
        passed = (*keywords, *dict.fromkeys(a.star for a in node.args if a.star))
        found = self._at(ctx.range(node))
        if found is not None:
            return found
        configs = keywords.get("configs")
        build = Build(
            module=None,
            region=ref.region,
            range=ctx.range(node),
            target=string(keywords.get("target")) if "target" in keywords else DEFAULT_PLATFORM,
            mode=string(keywords.get("mode")),
            has_num_output_args=configs is not None and "num_output_args" in ctx.text(configs),
            passed=passed,
            scope_path=path,
        )
        ctx.model.builds.append(build)
        return build

    def _at(self, where: Range) -> Build | None:
        """The build already recorded at `where` (an assignment's value is seen twice: as the
        assignment and as a call in it). Indexed as builds are added, replayed ones included."""
        builds = self.ctx.model.builds
        for b in builds[self._indexed :]:
            self._by_range.setdefault(b.range, b)
        self._indexed = len(builds)
        return self._by_range.get(where)

    def _module_call(self, call: cst.Call, build: Build) -> ModuleCall:
        ctx = self.ctx
        args = [
            CallArg(
                text=ctx.text(a.value),
                name=a.value.value if isinstance(a.value, cst.Name) else None,
                range=ctx.range(a.value),
                keyword=a.keyword.value if a.keyword else None,
                starred=bool(a.star),
            )
            for a in call.args
        ]
        return ModuleCall(
            module=call.func.value,  # type: ignore[union-attr]
            region=build.region,
            range=ctx.range(call.func),
            call_range=ctx.range(call),
            args=args,
            build_target=build.target,
            build_mode=build.mode,
        )
