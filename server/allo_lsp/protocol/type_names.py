"""How Allo prints a scalar type in its messages (`i32`, `ui1`, `f32`, `bf16`, `fixed(12, 4)`).

Shared by the analysis (its diagnostics quote Allo) and the reference executor (its build checks
raise Allo's messages), so both say exactly what Allo says.
"""

from __future__ import annotations


def printed_type(kind: str, bits: int, frac: int = 0, fallback: str = "index") -> str:
    """`kind` is one of int, uint, bool, float, bfloat, fixed, ufixed, index."""
    if kind == "int":
        return f"i{bits}"
    if kind == "uint":
        return f"ui{bits}"
    if kind == "bool":
        return "ui1"  # Allo's `bool` is `UInt(1)`
    if kind == "float":
        return f"f{bits}"
    if kind == "bfloat":
        return "bf16"
    if kind in ("fixed", "ufixed"):
        return f"{kind}({bits}, {frac})"
    return fallback
