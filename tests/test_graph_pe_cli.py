"""`allo-lsp graph FILE::REGION --pe NAME` as a terminal runs it (a real subprocess): the
branches one PE keeps, the lines of its kernel it runs with its values and stream ends, and its
streams (element -> peer); `--format json` the server's `alloDataflow/activePe` answer."""

import json
import subprocess
import sys

from paths import EXAMPLES

SYSTOLIC = EXAMPLES / "systolic_gemm.py"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "allo_lsp", "graph", *args], capture_output=True, text=True, timeout=60
    )


def section(out: str, title: str) -> list[str]:
    """The lines under `title:` up to the next blank line."""
    lines = out.split("\n")
    start = lines.index(f"{title}:") + 1
    return lines[start : lines.index("", start)]


def test_an_inner_pe_of_the_systolic_grid():
    out = run(f"{SYSTOLIC}::top", "--pe", "gemm_1_2")
    assert out.returncode == 0, out.stderr
    text = SYSTOLIC.read_text().split("\n")
    assert out.stdout.startswith("PE gemm_1_2 of kernel gemm (region top): pid (1, 2), role meta_else()\n")
    else_line = next(n for n, line in enumerate(text, 1) if "meta_else()" in line and "with" in line)
    assert section(out.stdout, "kept branches") == [f"  lines {else_line}-{else_line + 8}: with allo.meta_else():"]
    runs = section(out.stdout, "runs")
    # The kernel from its decorator; each branch it does not take is one line saying where it was.
    assert runs[0].endswith(" | " + text[int(runs[0].split(" | ")[0]) - 1]) and "@df.kernel(mapping=[P0, P1]" in runs[0]
    assert sum("a branch it does not take" in line for line in runs) == 5
    # The lines it runs and the branches left out are the kernel's lines, each once, in order.
    numbers = []
    for line in runs:
        if " | " in line:
            numbers.append(int(line.split(" | ")[0]))
        else:
            first, last = line.split("lines ")[1].split(":")[0].split("-")
            numbers += range(int(first), int(last) + 1)
    assert numbers == list(range(numbers[0], numbers[-1] + 1)) and text[numbers[-1]] == ""
    assert not any("local_A[i - 1, k]" in line for line in runs)  # the loaders' put
    pid = next(line for line in runs if "df.get_pid()" in line)
    assert pid.endswith("i, j = df.get_pid()  # i = 1, j = 2")
    put = next(line for line in runs if "fifo_A[i, j + 1].put(a)" in line)
    assert put.endswith("  # fifo_A[1, 3] -> gemm_1_3")
    # Every line it runs is the file's own line, numbered as in the file.
    for line in runs:
        if "|" in line:
            number, code = line.split(" | ", 1)
            source = text[int(number) - 1]
            assert code == source or code.startswith(source + "  # ")
    streams = out.stdout.split("streams:\n", 1)[1].strip().split("\n")
    assert [s.rsplit(" (line", 1)[0].strip() for s in streams] == [
        "fifo_A[1, 2] <- gemm_1_1",
        "fifo_B[1, 2] <- gemm_0_2",
        "fifo_A[1, 3] -> gemm_1_3",
        "fifo_B[2, 2] -> gemm_2_2",
    ]


def test_a_loader_and_the_json_answer():
    out = run(f"{SYSTOLIC}::top", "--pe", "gemm_3_0", "--format", "json")
    assert out.returncode == 0, out.stderr
    answer = json.loads(out.stdout)
    assert answer["active"] == {"name": "gemm_3_0", "pid": [3, 0], "role": "meta_elif(j == 0)"}
    assert len(answer["pes"]) == 36 and len(answer["inactive"]) == 5 and len(answer["kept"]) == 1
    (site,) = answer["streams"]
    assert (site["element"], site["op"], site["peer"]) == ("fifo_A[3, 1]", "put", "gemm_3_1")
    lines = SYSTOLIC.read_text().split("\n")
    start, end = site["range"]["start"], site["range"]["end"]
    assert lines[start["line"]][start["character"] : end["character"]] == "fifo_A[i, j + 1].put"


def test_a_sub_region_and_a_region_in_a_test_function():
    out = run(f"{EXAMPLES / 'hierarchical.py'}::inner", "--pe", "scale_0")
    assert out.returncode == 0, out.stderr
    assert section(out.stdout, "kept branches") == ["  (none: it runs no meta_if/elif/else branch, or none folds)"]
    assert out.stdout.rstrip().endswith("doubled -> offset_0 (line 24)")
    out = run(f"{EXAMPLES / 'region_in_test.py'}::top", "--pe", "writer_0")
    assert out.returncode == 0, out.stderr
    assert "sums <- adder_0" in out.stdout.split("streams:\n", 1)[1]


def test_what_is_not_a_pe_exits_2():
    for args in (
        ("--pe", "gemm_9_9"),
        ("--pe", "gemm"),
        ("--pe", "gemm_1_2", "--format", "dot"),
        ("--format", "text"),
    ):
        out = run(f"{SYSTOLIC}::top", *args)
        assert out.returncode == 2 and out.stdout == "", args
        assert out.stderr.startswith("allo-lsp graph: "), args
    out = run(f"{SYSTOLIC}::nothing", "--pe", "gemm_1_2")
    assert out.returncode == 2 and "no PE 'gemm_1_2' in region 'nothing'" in out.stderr
