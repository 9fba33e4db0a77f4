"""STAND-IN `allo._mlir.dialects` (tests only)."""
