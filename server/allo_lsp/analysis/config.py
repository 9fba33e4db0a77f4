"""`[tool.allo-lsp]` of a `pyproject.toml`: the project's choice of codes and severities, and its
Allo build. Ruff's `[tool.ruff.lint]` is the model:

```toml
[tool.allo-lsp]
select = ["ADF"]                  # the codes checked (default: every code); a prefix selects a group
extend-select = []                # added to `select`
ignore = ["ADF006"]               # not checked
per-file-ignores = { "tests/*" = ["ADF0"] }   # fnmatch patterns, relative to the pyproject.toml
severity = { ADF022 = "error" }   # error, warning, information or hint, instead of the rule's
allo-build = "fixed"              # auto, fixed or legacy: when the editor's setting or --allo-build is auto
```

A code is checked when the most specific selector that names it (`ADF005` over `ADF00` over
`ADF`, `ALL` least) is in `select`/`extend-select`; at equal specificity `ignore` wins. A
`per-file-ignores` entry always wins. Syntax errors (ADF900) are always shown.

Pure: the text in, the configuration and its problems out. A mistake costs only the entry it is
in, and is a problem on the line that holds it, never an exception.
"""

from __future__ import annotations

import fnmatch
import functools
import re
from dataclasses import dataclass, replace

from allo_lsp.analysis.model import Range
from allo_lsp.analysis.problems import Problem, Severity
from allo_lsp.analysis.rules import RULES
from allo_lsp.analysis.selection import Selection
from allo_lsp.protocol.vocabulary import ALLO_BUILDS

TABLE = "allo-lsp"
KEYS = ("select", "extend-select", "ignore", "per-file-ignores", "severity", "allo-build")
ALL = "ALL"
_SEVERITIES = {s.label: s for s in Severity}
_AT = re.compile(r" ?\(at line (\d+), column (\d+)\)")
MAX_PROBLEMS = 100  # then one problem counts the rest: 20,000 bad codes are no list to read
_SHOWN = 60  # characters of a value quoted in a message
MAX_PATTERN_CHARS = 1000  # a per-file-ignores pattern; as the workspace's globs (session/globs.py)


@dataclass(frozen=True)
class Config:
    select: tuple[str, ...] = (ALL,)
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    severities: tuple[tuple[str, Severity], ...] = ()  # (selector, severity)
    allo_build: str = ""  # "": not configured

    def selection_for(self, relative_path: str) -> Selection:
        """What a file at `relative_path` (to the pyproject.toml, `/`-separated) shows."""
        return _selection(self, relative_path)

    def _selection(self, relative_path: str) -> Selection:
        name = relative_path.rsplit("/", 1)[-1]
        per_file = [
            s
            for pattern, selectors in self.per_file_ignores
            if _matches(pattern, relative_path, name)
            for s in selectors
        ]
        ignored = frozenset(code for code in _codes() if not self._checked(code) or _best(code, per_file) is not None)
        severities = []
        for code in _codes():
            best = _best(code, [s for s, _ in self.severities])
            if best is not None:
                severities.append((code, dict(self.severities)[best]))
        return Selection(ignored, tuple(severities))

    def _checked(self, code: str) -> bool:
        enabled = _best(code, [*self.select, *self.extend_select])
        disabled = _best(code, list(self.ignore))
        if enabled is None:
            return False
        return disabled is None or _specificity(enabled) > _specificity(disabled)


# The server asks at every analysis: the same file under the same configuration, each time.
_selection = functools.lru_cache(maxsize=256)(Config._selection)


def _codes() -> list[str]:
    return [r.code for r in RULES]


def _specificity(selector: str) -> int:
    return 0 if selector == ALL else len(selector)


def _best(code: str, selectors: list[str]) -> str | None:
    """The most specific of `selectors` that names `code`."""
    naming = [s for s in selectors if s == ALL or code.startswith(s)]
    return max(naming, key=_specificity) if naming else None


def _matches(pattern: str, relative_path: str, name: str) -> bool:
    # Linear in the path: fnmatch makes each `*` and the text after it an atomic group (`*a*a*...b`
    # on 9,000 a's: 0.1 s), and a pattern is at most MAX_PATTERN_CHARS.
    pattern = pattern.removeprefix("./")
    return fnmatch.fnmatchcase(relative_path, pattern) or fnmatch.fnmatchcase(name, pattern)


def parse_config(text: str) -> tuple[Config | None, list[Problem]]:
    """The `[tool.allo-lsp]` table of a pyproject.toml's text (None: there is none), and the
    problems of what could not be used (on the config file's lines)."""
    toml = _toml()
    if toml is None:
        return None, [_unreadable(text)]
    try:
        document = toml.loads(text)
    except toml.TOMLDecodeError as exc:
        return None, [_syntax_problem(text, exc)]
    except RecursionError:  # tomllib recurses once per level of nesting; where it gave up, it does not say
        first = text.split("\n", 1)[0]
        message = "pyproject.toml nests arrays or tables too deeply to be read"
        return None, [Problem("", Severity.ERROR, Range.of(0, 0, 0, len(first)), message)]
    tool = document.get("tool")
    table = tool.get(TABLE) if isinstance(tool, dict) else None
    if table is None:
        return None, []
    if not isinstance(table, dict):
        return None, [_problem(text, "tool.allo-lsp must be a table", TABLE)]
    return _Reader(text).config(table)


def _toml():
    """The TOML parser: the standard library's `tomllib` (Python 3.11+), else `tomli`, the same
    parser published for Python 3.10 (a dependency there); None when neither is importable.
    Imported here, not at import: most runs find no [tool.allo-lsp] to parse."""
    try:
        import tomllib
    except ImportError:
        try:
            import tomli as tomllib
        except ImportError:
            return None
    return tomllib


def _unreadable(text: str) -> Problem:
    """Without a parser the table is not read: said on it, so the user knows why their selection
    and severities are not applied (the defaults are, as without a [tool.allo-lsp])."""
    message = (
        "[tool.allo-lsp] is not read: this Python has no tomllib (3.11+) and tomli is not installed"
        " in the server's environment (pip install tomli)"
    )
    return replace(_problem(text, message, TABLE), severity=Severity.WARNING)


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.problems: list[Problem] = []
        self.more = 0  # problems past MAX_PROBLEMS
        self._places = _Places(text)

    def config(self, table: dict) -> tuple[Config, list[Problem]]:
        for key in table:
            if key not in KEYS:
                self._bad(f"unknown key {_shown(key)} in [tool.allo-lsp] (known: {', '.join(KEYS)})", key)
        fields = {}
        for key in ("select", "extend-select", "ignore"):
            selectors = self._selectors(table[key], key) if key in table else None
            if selectors is not None:  # a value that is no list leaves the default (every code, for select)
                fields[key.replace("-", "_")] = selectors
        if "per-file-ignores" in table:
            fields["per_file_ignores"] = self._per_file(table["per-file-ignores"])
        if "severity" in table:
            fields["severities"] = self._severities(table["severity"])
        if "allo-build" in table:
            build = table["allo-build"]
            if isinstance(build, str) and build in ALLO_BUILDS:
                fields["allo_build"] = build
            else:
                self._bad(f"allo-build must be one of {', '.join(ALLO_BUILDS)}, not {_shown(build)}", "allo-build")
        if self.more:
            self.problems.append(self._places.problem(f"{self.more} more problems in [tool.allo-lsp] not listed"))
        return Config(**fields), self.problems

    def _selectors(self, value, key: str, *near: str) -> tuple[str, ...] | None:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self._bad(f'{key} must be a list of codes or code prefixes, like ["ADF005", "ADF02"]', *near, key)
            return None
        return tuple(s for s in (self._selector(v, key) for v in value) if s is not None)

    def _selector(self, value: str, key: str) -> str | None:
        selector = value.strip().upper()
        if selector == ALL or any(code.startswith(selector) for code in _codes()) and selector:
            return selector
        self._bad(f"{key}: no code starts with {_shown(value)} (see `allo-lsp rules`)", f'"{value}"', key)
        return None

    def _per_file(self, value) -> tuple[tuple[str, tuple[str, ...]], ...]:
        if not isinstance(value, dict):
            self._bad(
                'per-file-ignores must be a table of patterns, like { "tests/*" = ["ADF006"] }', "per-file-ignores"
            )
            return ()
        out = []
        for pattern, codes in value.items():
            if len(pattern) > MAX_PATTERN_CHARS:  # its regular expression alone takes 30 ms to compile
                self._bad(f"per-file-ignores: a pattern of more than {MAX_PATTERN_CHARS} characters", f'"{pattern}"')
                continue
            out.append((pattern, self._selectors(codes, f"per-file-ignores {_shown(pattern)}", f'"{pattern}"') or ()))
        return tuple(out)

    def _severities(self, value) -> tuple[tuple[str, Severity], ...]:
        if not isinstance(value, dict):
            self._bad('severity must be a table of codes, like { ADF022 = "error" }', "severity")
            return ()
        out = []
        for selector, label in value.items():
            chosen = self._selector(selector, "severity")
            if chosen is None:
                continue
            if not isinstance(label, str) or label not in _SEVERITIES:
                message = f"severity of {_shown(selector)}: one of {', '.join(_SEVERITIES)}, not {_shown(label)}"
                self._bad(message, selector)
                continue
            out.append((chosen, _SEVERITIES[label]))
        return tuple(out)

    def _bad(self, message: str, *near: str) -> None:
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append(self._places.problem(message, *near))
        else:
            self.more += 1


def _shown(value) -> str:
    """`value` as a message quotes it: a string (cut), a number; a list or table by its kind
    alone (its repr may be megabytes, or nested too deep to make)."""
    if isinstance(value, str):
        return repr(value if len(value) <= _SHOWN else value[:_SHOWN] + "...")
    if isinstance(value, bool | int | float):
        return repr(value)
    return {list: "a list", dict: "a table"}.get(type(value), f"a {type(value).__name__}")


def _syntax_problem(text: str, exc: Exception) -> Problem:
    found = _AT.search(str(exc))
    lines = text.split("\n")
    # Without a place, the error is at the end of the document (an unclosed array, string...).
    line, column = (int(found.group(1)) - 1, int(found.group(2)) - 1) if found else (len(lines) - 1, 0)
    line = min(line, len(lines) - 1)
    message = f"pyproject.toml is not valid TOML: {_AT.sub('', str(exc))}"
    return Problem("", Severity.ERROR, Range.of(line, column, line, len(lines[line])), message)


def _problem(text: str, message: str, *near: str) -> Problem:
    return _Places(text).problem(message, *near)


class _Places:
    """Where a problem of the [tool.allo-lsp] tables goes: the first of their lines that mentions
    one of its words (in order), else the table's header. The lines are split once per document."""

    def __init__(self, text: str) -> None:
        self.lines = lines = text.split("\n")
        self.header = next((i for i, l in enumerate(lines) if l.strip().startswith(f"[tool.{TABLE}")), 0)
        self.in_table = []
        for i in range(self.header, len(lines)):
            stripped = lines[i].strip()
            if i > self.header and stripped.startswith("[") and not stripped.startswith(f"[tool.{TABLE}"):
                break
            self.in_table.append(i)

    def problem(self, message: str, *near: str) -> Problem:
        for word in near:
            for i in self.in_table:
                column = self.lines[i].find(word)
                if column >= 0:
                    return Problem("", Severity.ERROR, Range.of(i, column, i, column + len(word)), message)
        header = self.header
        return Problem("", Severity.ERROR, Range.of(header, 0, header, len(self.lines[header])), message)
