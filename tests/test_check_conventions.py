"""`allo-lsp check` with a linter's conventions, Ruff's: `--fix`, `--unsafe-fixes`, `--diff`, its
exit status, `[tool.allo-lsp]` in pyproject.toml, noqa comments. A real subprocess, in a project
made in a temporary directory."""

import json
import subprocess
import sys
from pathlib import Path

from paths import EXAMPLES

MAPPING = (EXAMPLES / "pitfall_mapping_order.py").read_text()  # one ADF011: a safe fix
SCALAR = (EXAMPLES / "pitfall_bare_scalar.py").read_text()  # one ADF002: an unsafe fix
MAPPING_LINE = "    @df.kernel(args=[A], mapping=[1])"
FIXED_LINE = "    @df.kernel(mapping=[1], args=[A])"


def check(*args, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "allo_lsp", "check", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
    )


def project(tmp_path: Path, config: str | None = None, **files: str) -> Path:
    if config is not None:
        (tmp_path / "pyproject.toml").write_text(f"[project]\nname = 'demo'\n\n[tool.allo-lsp]\n{config}")
    for name, text in files.items():
        path = tmp_path / (name.replace("__", "/") + ".py")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


def diagnostics(out: subprocess.CompletedProcess) -> list[tuple[str, str, str]]:
    return [
        (Path(f["path"]).stem, d["code"], d["severity"])
        for f in json.loads(out.stdout)["files"]
        for d in f["diagnostics"]
    ]


# -- --fix, --unsafe-fixes, --diff and the exit status ------------------------------------------


def test_fix_applies_the_safe_fix_and_exits_0_when_nothing_is_left(tmp_path):
    root = project(tmp_path, mapping=MAPPING)
    before = check("mapping.py", cwd=root)
    assert before.returncode == 1 and "[*] 1 fixable with --fix." in before.stdout
    out = check("mapping.py", "--fix", cwd=root)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Fixed 1 problem." in out.stdout and "ADF011" not in out.stdout
    assert (root / "mapping.py").read_text() == MAPPING.replace(MAPPING_LINE, FIXED_LINE)
    assert check("mapping.py", cwd=root).returncode == 0


def test_an_unsafe_fix_needs_unsafe_fixes(tmp_path):
    root = project(tmp_path, scalar=SCALAR)
    hint = check("scalar.py", cwd=root)
    assert "No fix available (1 more with --unsafe-fixes)." in hint.stdout
    out = check("scalar.py", "--fix", cwd=root)
    assert out.returncode == 1 and "ADF002" in out.stdout
    assert (root / "scalar.py").read_text() == SCALAR
    out = check("scalar.py", "--fix", "--unsafe-fixes", cwd=root)
    assert out.returncode == 0, out.stdout
    fixed = (root / "scalar.py").read_text()
    assert "n: int32[1]" in fixed and "mod(A, np.array([5], dtype=np.int32), B)" in fixed


def test_diff_prints_the_fixes_writes_nothing_and_exits_1_if_there_are_any(tmp_path):
    root = project(tmp_path, mapping=MAPPING, scalar=SCALAR)
    out = check("mapping.py", "scalar.py", "--diff", cwd=root)
    assert out.returncode == 1
    assert out.stdout.startswith("--- mapping.py\n+++ mapping.py\n@@ ")
    assert f"\n-{MAPPING_LINE}\n+{FIXED_LINE}\n" in out.stdout and "scalar.py" not in out.stdout
    assert "Would fix 1 problem." in out.stderr
    assert (root / "mapping.py").read_text() == MAPPING
    unsafe = check("scalar.py", "--diff", "--unsafe-fixes", cwd=root)
    assert unsafe.returncode == 1 and "+def top(A: int32[M], n: int32[1], B: int32[M]):" in unsafe.stdout
    assert check("scalar.py", "--diff", cwd=root).returncode == 0  # no safe fix: nothing to show


def test_exit_zero_and_exit_non_zero_on_fix(tmp_path):
    root = project(tmp_path, mapping=MAPPING, scalar=SCALAR)
    assert check("scalar.py", "--exit-zero", cwd=root).returncode == 0
    out = check("mapping.py", "--fix", "--exit-non-zero-on-fix", cwd=root)
    assert out.returncode == 1 and "Fixed 1 problem." in out.stdout
    assert check("mapping.py", "--fix", "--exit-non-zero-on-fix", cwd=root).returncode == 0  # nothing left to fix


def test_fix_with_json_prints_what_is_left(tmp_path):
    root = project(tmp_path, mapping=MAPPING, scalar=SCALAR)
    out = check("mapping.py", "scalar.py", "--fix", "--format", "json", cwd=root)
    assert out.returncode == 1
    assert diagnostics(out) == [("scalar", "ADF002", "error")]


# -- noqa ------------------------------------------------------------------------------------


def test_noqa_comments_hide_their_codes(tmp_path):
    root = project(tmp_path, a=MAPPING.replace(MAPPING_LINE, MAPPING_LINE + "  # noqa: ADF011"))
    assert check("a.py", cwd=root).returncode == 0
    root = project(tmp_path, b="# allo-lsp: noqa: ADF011\n" + MAPPING)
    assert check("b.py", cwd=root).returncode == 0
    root = project(tmp_path, c=MAPPING.replace(MAPPING_LINE, MAPPING_LINE + "  # noqa: ADF005"))
    assert check("c.py", cwd=root).returncode == 1


# -- [tool.allo-lsp] ---------------------------------------------------------------------------


def test_the_nearest_configuration_upward_is_read(tmp_path):
    root = project(tmp_path, 'ignore = ["ADF011"]\n', src__deep__mapping=MAPPING, src__scalar=SCALAR)
    out = check("src", "--format", "json", cwd=root)
    assert diagnostics(out) == [("scalar", "ADF002", "error")]
    # A pyproject.toml without the table is passed over, as Ruff passes over one without [tool.ruff].
    (root / "src" / "pyproject.toml").write_text("[project]\nname = 'inner'\n")
    assert diagnostics(check("src", "--format", "json", cwd=root)) == [("scalar", "ADF002", "error")]
    # Checked from elsewhere: the file's project, not the working directory's.
    assert diagnostics(check(root / "src", "--format", "json", cwd=tmp_path.parent)) == [("scalar", "ADF002", "error")]


def test_select_per_file_ignores_and_severity(tmp_path):
    config = 'select = ["ADF0"]\nper-file-ignores = { "tests/*" = ["ADF002"] }\nseverity = { ADF011 = "information" }\n'
    root = project(tmp_path, config, tests__scalar=SCALAR, scalar=SCALAR, mapping=MAPPING)
    out = check("scalar.py", "tests/scalar.py", "mapping.py", "--format", "json", cwd=root)
    assert diagnostics(out) == [("scalar", "ADF002", "error"), ("mapping", "ADF011", "information")]
    only = project(tmp_path, 'select = ["ADF005"]\n')
    assert check("scalar.py", "mapping.py", cwd=only).returncode == 0


def test_allo_build_of_the_configuration_unless_the_command_line_says(tmp_path):
    order = (EXAMPLES / "pitfall_arg_order.py").read_text()
    root = project(tmp_path, 'allo-build = "legacy"\n', order=order)
    assert diagnostics(check("order.py", "--format", "json", cwd=root))[0] == ("order", "ADF003", "error")
    out = check("order.py", "--format", "json", "--allo-build", "fixed", cwd=root)
    assert [d for d in diagnostics(out) if d[1] != "ADF005"] == [("order", "ADF003", "information")]


def test_a_bad_configuration_is_reported_on_its_line_and_exits_2(tmp_path):
    root = project(tmp_path, 'ignore = ["ADF011"]\nselct = ["ADF0"]\n', mapping=MAPPING)
    out = check("mapping.py", "--fix", cwd=root)
    assert out.returncode == 2 and out.stdout == ""
    assert f"{root / 'pyproject.toml'}:6:1: error: unknown key 'selct' in [tool.allo-lsp]" in out.stderr
    assert (root / "mapping.py").read_text() == MAPPING  # nothing is fixed under a configuration it cannot read
    (root / "pyproject.toml").write_text('[tool.allo-lsp]\nignore = ["ADF011"\n')
    out = check("mapping.py", cwd=root)
    assert out.returncode == 2 and "pyproject.toml is not valid TOML" in out.stderr and "Traceback" not in out.stderr
