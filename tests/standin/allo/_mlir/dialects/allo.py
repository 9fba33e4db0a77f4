"""STAND-IN for Allo's `allo` dialect bindings (tests only): upstream bindings cannot register it,
so its ops and types are read as an unregistered dialect's (`allo._mlir.ir.Module.parse`)."""

from allo._mlir import ir  # noqa: F401  (not importable when `allo._mlir` is not)


def register_dialect(context) -> None:
    context.allow_unregistered_dialects = True
