"""`allo.dsl` under the reference backend (`dsl.grid`, `dsl.reduction` in kernels and tests)."""

from allo_lsp.runner.reference.library import grid

reduction = grid
