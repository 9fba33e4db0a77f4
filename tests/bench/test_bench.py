"""The benchmarks of issue #8 (bench/): the generated files are valid, and every script runs.

The full run (`bench/run_all.py --json`) takes about half an hour; here each script runs in its
`--quick` mode (small sizes and counts, nothing installed).
"""

import json
import subprocess
import sys

import pytest
from allo_lsp.analysis import analyze
from paths import ROOT

sys.path.insert(0, str(ROOT / "bench"))

from generate import SIZES, generate


@pytest.mark.parametrize("lines", SIZES)
def test_generated_file_is_exact_deterministic_and_clean(lines):
    g = generate(lines)
    assert g.text.count("\n") == lines
    assert generate(lines).text == g.text
    assert generate(lines, seed=1).text != g.text
    assert analyze(g.text).problems == []
    assert len(g.regions) >= lines // 100 and len(g.tests) >= len(g.regions)


def test_generated_file_has_the_constructs_the_benchmarks_need():
    text = generate(2_000).text
    for construct in (
        "@df.region()",
        "@df.kernel(mapping=[",
        "Stream[int32, ",
        "][P0_",
        "allo.meta_if(",
        "allo.meta_elif(",
        "allo.meta_else()",
        "df.get_pid()",
        "ConstExpr[int32]",
        "df.build(",
        "    @df.region()\n    def vadd_",
    ):
        assert construct in text, construct


def test_edit_site_is_in_a_kernel_body_and_both_texts_stay_clean():
    g = generate(500)
    line, column = g.middle_site()
    model = analyze(g.text).model
    bodies = [k.body_range for r in model.regions for k in r.kernels if k.body_range]
    assert any(b.start.line <= line <= b.end.line for b in bodies)
    lines = g.text.split("\n")
    assert lines[line][column - 1].isdigit()
    lines[line] = lines[line][:column] + "1" + lines[line][column:]
    assert analyze("\n".join(lines)).problems == []


def test_all_benchmarks_run_in_quick_mode():
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "run_all.py"), "--quick", "--json"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=str(ROOT),
    )
    result = json.loads(done.stdout)
    failed = {name: r["error"] for name, r in result["results"].items() if "error" in r}
    assert not failed, failed
    assert done.returncode == 0, done.stderr[-2000:]
    assert set(result["results"]) == {"generate", "latency", "peers", "hover_lens", "cold_start", "job_start", "memory"}
    assert result["results"]["generate"]["ok"]
    latency = result["results"]["latency"]["sizes"][0]
    assert latency["server"]["edits"] > 0 and latency["server"]["nonempty_publications"] == 0
    assert latency["ratio_p50_to_ast_parse"] is not None
    assert result["results"]["hover_lens"]["hover"]["n"] > 0
    assert result["results"]["job_start"]["job_start"]["n"] > 0
    assert result["results"]["memory"]["open_mb"] > 0
    for name, r in result["results"]["peers"]["sizes"][0]["servers"].items():
        assert "error" not in r, (name, r)
    assert all(isinstance(v, (bool, type(None))) for v in result["goals"].values())
