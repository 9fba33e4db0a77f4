"""Human-readable snapshots, Ruff style: `CODE message --> file:line:col` and a caret excerpt."""

from __future__ import annotations

from pathlib import Path

from paths import UPDATE_SNAPSHOTS


def render_problems(name: str, text: str, problems) -> str:
    lines = text.split("\n")
    out = []
    for p in problems:
        start, end = p.range.start, p.range.end
        out.append(f"{p.code} {p.severity.label}: {p.message}")
        out.append(f"  --> {name}:{start.line + 1}:{start.column + 1}")
        source = lines[start.line] if start.line < len(lines) else ""
        width = (end.column if end.line == start.line else len(source)) - start.column
        out.append(f"   | {source}")
        out.append(f"   | {' ' * start.column}{'^' * max(width, 1)}")
        out.append("")
    return "\n".join(out) if out else "(no diagnostics)\n"


def assert_snapshot(path: Path, actual: str) -> None:
    if UPDATE_SNAPSHOTS or not path.exists():
        if not UPDATE_SNAPSHOTS:
            raise AssertionError(f"missing snapshot {path}; run with UPDATE_SNAPSHOTS=1 and review it")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(actual)
        return
    expected = path.read_text()
    assert actual == expected, f"snapshot {path.name} differs (UPDATE_SNAPSHOTS=1 rewrites it)"
