"""STAND-IN for Allo's MLIR bindings (`allo._mlir`), for tests only (tests/standin/README.md).

Real Allo builds its own bindings, which know the `allo` dialect. This stand-in re-exports upstream
bindings (`mlir.ir`, else `torch_mlir.ir`: the dev environment has torch-mlir) and teaches them
the one `allo` op the stand-in's `customize().module` prints in Allo's custom form
(`allo.stream_construct`), so a job reads the stand-in's module as a real Allo's would be read.
Not importable when no upstream bindings are, or when `ALLO_STANDIN_BINDINGS=none`.
"""

from allo._mlir import ir  # noqa: F401  (raises ImportError when there are none to stand in)
