"""The scripts a job generates quote what they embed (issue 25, items 11 and 12), the second wall
behind the checks of names, parts and clocks: `run.tcl`'s part and clock read back by a real Tcl
interpreter as exactly the text given, and `job.sh` run by a real `sh` with a job directory whose
name holds a newline and a command."""

import shlex
import shutil
import subprocess

import pytest
from allo_lsp.jobs.environment import SetupError
from allo_lsp.jobs.points import Point
from allo_lsp.jobs.slurm_batch import BatchSpec, script
from allo_lsp.jobs.synthesis import SynthConfig, configure_tcl, tcl_quote

HOSTILE = [
    "xcu250}",
    "xcu250} [exec touch PWNED]",
    "[exec touch PWNED]",
    "a\\",
    "xcu250\\d",
    "a\\\nexec touch PWNED",
    "a\nexec touch PWNED",
    "$env(HOME)",
    '"quoted"',
    "a;exec touch PWNED",
    "{",
    "}",
    "#comment",
    " spaced  out ",
    "\t\r\x00\x7f\x0b\x0c",
    "é\u2028😀",
    "a\\u0041",
    "",
]
ALLO_TCL = (
    "open_project out.prj\nset_part {xcu280-fsvh2892-2L-e}\ncreate_clock -period 3.33 -name default\ncsynth_design\n"
)
TCLSH = shutil.which("tclsh")
needs_tcl = pytest.mark.skipif(TCLSH is None, reason="no tclsh (Debian's tcl package)")


def _tcl(script_text: str, cwd) -> str:
    """What `script_text` prints under a real tclsh, where `set_part` and `create_clock` print
    each argument they receive (as Vitis would receive them) as `LENGTH:TEXT` on a line."""
    stub = 'puts -nonewline "[llength $args]"; foreach a $args {puts -nonewline " [string length $a]:$a"}; puts ""'
    stubs = f"proc set_part {{args}} {{{stub}}}\nproc create_clock {{args}} {{{stub}}}\n"
    out = subprocess.run([TCLSH], input=(stubs + script_text).encode(), capture_output=True, cwd=cwd, timeout=10)
    assert out.returncode == 0, out.stderr.decode()
    return out.stdout.decode()


@needs_tcl
@pytest.mark.parametrize("text", HOSTILE, ids=repr)
def test_a_tcl_quoted_word_is_read_back_as_the_text(tmp_path, text):
    printed = _tcl(f'set t {tcl_quote(text)}\nputs -nonewline "[string length $t]:$t"', tmp_path)
    assert printed == f"{len(text.encode('utf-16-le')) // 2}:{text}"
    assert not (tmp_path / "PWNED").exists()


@needs_tcl
@pytest.mark.parametrize("part", HOSTILE[:10], ids=repr)
def test_run_tcl_takes_the_part_as_one_word_whatever_it_holds(tmp_path, part):
    """The old set_part line was `set_part {PART}`: a '}' ended the word and `[exec ...]` ran; a
    backslash made re.sub raise re.PatternError (the replacement is now a function)."""
    tcl = tmp_path / "run.tcl"
    tcl.write_text(ALLO_TCL)
    configure_tcl(str(tcl), SynthConfig(part=part, clock_ns=5))
    lines = tcl.read_text().splitlines(keepends=True)
    assert lines[0] == "open_project out.prj\n" and lines[-1] == "csynth_design\n"
    printed = _tcl("".join(lines[1:-1]), tmp_path)
    assert printed == f"1 {len(part)}:{part}\n4 7:-period 1:5 5:-name 7:default\n"
    assert not (tmp_path / "PWNED").exists()


def test_the_batch_script_holds_no_line_of_the_job_directorys_name(tmp_path):
    """The old script wrote the job directory (named after the region) into a comment: a newline
    in it began a line of its own, which sh ran."""
    job_dir = tmp_path / "20261202-top\ntouch PWNED\n#"
    job_dir.mkdir()
    (job_dir / "job.sh").write_text(script(str(job_dir)))
    subprocess.run(["sh", str(job_dir / "job.sh")], cwd=tmp_path, capture_output=True, timeout=60)
    assert not (tmp_path / "PWNED").exists()
    head, exec_line = script(str(job_dir)).split("\nexec ", 1)
    assert head == "#!/bin/sh\n# allo-lsp synthesis (generated)" and shlex.split(exec_line)[-1] == str(job_dir)


@pytest.mark.parametrize(
    ("change", "needle"),
    [
        ({"region": "top\ntouch PWNED"}, "not the name of a region"),
        ({"region": "../x"}, "not the name of a region"),
        ({"synth": {"part": "xcu250}"}}, "part"),
        ({"synth": {"clock_ns": float("inf")}}, "clock"),
        ({"points": [Point(), Point(part="a b")]}, "part"),
        ({"points": [Point(clock_ns=-1.0)]}, "clock"),
        ({"points": [Point(clock_ns=float("nan"))]}, "clock"),
    ],
)
def test_a_batch_spec_refuses_what_its_files_cannot_hold(change, needle):
    """A batch spec is made before its job directory: what it refuses is never written."""
    with pytest.raises(SetupError, match=needle):
        BatchSpec(**{"file": "/w/design.py", "region": "top", "source": "", **change})
    BatchSpec("/w/design.py", "top", "", synth={"part": "xcu250-figd2104-2L-e", "clock_ns": 3.33})
