"""A minimal script that reproduces a compiler bug: what to attach to an Allo issue.

It keeps the file's imports and module-level constants, the failing region (with the regions it
calls) or the failing test function, and one line that builds it. Nothing else of the file.
"""

from __future__ import annotations

import re

from allo_lsp.analysis.model import FileModel, Region

_TOP_LEVEL_SETUP = re.compile(r"^(import |from \S+ import |[A-Za-z_][\w, ]*=(?!=))")


def reproducer(text: str, model: FileModel, target: str, message: str) -> str | None:
    lines = text.split("\n")
    region = model.module_region(target)
    function = model.function(target)
    if region is not None:
        keep = _with_subregions(region)
        spans = [(r.decorator_range.start.line, r.def_range.end.line) for r in keep]
        call = f'mod = df.build({target}, target="simulator")'
    elif function is not None:
        spans = [(_first_decorator_line(lines, function.def_range.start.line), function.def_range.end.line)]
        call = f"{target}()"
    else:
        return None
    body_lines = {i for start, end in spans for i in range(start, end + 1)}
    setup = [
        line
        for i, line in enumerate(lines)
        if i not in body_lines and _TOP_LEVEL_SETUP.match(line) and i < max(s for s, _ in spans)
    ]
    parts = [
        f'"""Minimal reproducer written by allo-lsp.\n\n{message}\n"""',
        "\n".join(setup),
        *("\n".join(lines[s : e + 1]) for s, e in sorted(spans)),
        f'if __name__ == "__main__":\n    {call}',
    ]
    return "\n\n\n".join(p for p in parts if p.strip()) + "\n"


def _with_subregions(region: Region) -> list[Region]:
    seen: list[Region] = []
    pending = [region]
    while pending:
        r = pending.pop()
        if any(r is s for s in seen):
            continue
        seen.append(r)
        pending += [sub for k in r.kernels for sub in k.subregions]
    return seen


def _first_decorator_line(lines: list[str], def_line: int) -> int:
    start = def_line
    while start > 0 and lines[start - 1].lstrip().startswith("@"):
        start -= 1
    return start
