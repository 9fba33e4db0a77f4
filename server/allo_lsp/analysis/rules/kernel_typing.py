"""The typed kernels the type rules (ADF080-ADF094) read: `Kernel.typing`, made once per
analysis by `analysis/expression_types.py`."""

from __future__ import annotations

from collections.abc import Iterator

from allo_lsp.analysis.model import FileModel, Kernel, KernelTyping, Region


def typed_kernels(model: FileModel) -> Iterator[tuple[Region, Kernel, KernelTyping]]:
    for region in model.regions:
        for kernel in region.kernels:
            if kernel.typing is not None:
                yield region, kernel, kernel.typing


def problems_of(model: FileModel, kinds: tuple[str, ...]):
    """Each typing problem of one of `kinds`, with its region and kernel."""
    for region, kernel, typing in typed_kernels(model):
        for problem in typing.problems:
            if problem.kind in kinds:
                yield region, kernel, problem
