"""The editor's sweep (`alloDataflow.sweep`) and the workspace's storage, through the real server
over stdio: the stand-in Allo and the stand-in Vitis HLS, the local scheduler."""

import asyncio
import math
import os
import sys
import tempfile
import time
from pathlib import Path

import pytest
import pytest_lsp
from allo_lsp.jobs.registry import Registry, Submitted
from allo_lsp.protocol.vocabulary import WORKSPACE_STORAGE
from designs import design, fake_llvm_build_dir
from editor import Editor, make_client
from hostile_vitis import huge_lut_path
from lsprotocol import types as lsp
from paths import STANDIN
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
from waiting import file_poll, until

SWEEP = "alloDataflow.sweep"
# One directory per test run, made before the servers start (their environment names it): the
# editor's storage (initializationOptions) and the XDG state directory of the fallback.
ROOT = tempfile.mkdtemp(prefix="allo-lsp-sweep-editor-")
GIVEN, XDG = os.path.join(ROOT, "vscode-storage"), os.path.join(ROOT, "xdg-state")


def _env(**extra: str) -> dict[str, str]:
    env = dict(os.environ, **extra)
    env.pop("LLVM_BUILD_DIR", None)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(STANDIN), os.environ.get("PYTHONPATH")) if p)
    # The stand-in vitis_hls, this interpreter, and no Slurm commands: a re-attached cluster job
    # then ends at once in "scontrol is not on PATH", whatever this machine has installed.
    env["PATH"] = os.pathsep.join([str(STANDIN / "bin"), os.path.dirname(sys.executable)])
    env["XDG_STATE_HOME"] = XDG
    return env


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=[sys.executable, "-m", "allo_lsp", "serve"], client_factory=make_client, server_env=_env()
    ),
    params=["given", "fallback"],
)
async def sweep_client(lsp_client: LanguageClient, request):
    lsp_client.editor = Editor(lsp_client, "visual_studio_code")
    lsp_client.set_configuration(
        {"debounceMs": 50, "llvmBuildDir": fake_llvm_build_dir(), "timeout": 60}, section="alloDataflow"
    )
    options = {WORKSPACE_STORAGE: GIVEN} if request.param == "given" else None
    await lsp_client.initialize_session(
        lsp.InitializeParams(capabilities=client_capabilities("visual_studio_code"), initialization_options=options)
    )
    lsp_client.storage_given = request.param == "given"
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=[sys.executable, "-m", "allo_lsp", "serve"],
        client_factory=make_client,
        server_env=_env(VITIS_STANDIN="hang"),  # every synthesis of this server hangs in Vitis
    )
)
async def hanging_client(lsp_client: LanguageClient):
    lsp_client.editor = Editor(lsp_client, "visual_studio_code")
    lsp_client.set_configuration(
        {"debounceMs": 50, "llvmBuildDir": fake_llvm_build_dir(), "timeout": 120}, section="alloDataflow"
    )
    await lsp_client.initialize_session(lsp.InitializeParams(capabilities=client_capabilities("visual_studio_code")))
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=[sys.executable, "-m", "allo_lsp", "serve"],
        client_factory=make_client,
        # A Vitis whose reports at a 5 ns clock have a 400-digit LUT (tests/hostile_vitis.py).
        server_env={**_env(), "PATH": huge_lut_path(Path(ROOT) / "huge-lut-bin", _env()["PATH"])},
    )
)
async def huge_lut_client(lsp_client: LanguageClient):
    lsp_client.editor = Editor(lsp_client, "visual_studio_code")
    lsp_client.set_configuration(
        {"debounceMs": 50, "llvmBuildDir": fake_llvm_build_dir(), "timeout": 60}, section="alloDataflow"
    )
    await lsp_client.initialize_session(lsp.InitializeParams(capabilities=client_capabilities("visual_studio_code")))
    yield
    await lsp_client.shutdown_session()


def _descendants(pid: int, name: str) -> list[int]:
    """The processes under `pid` whose command line has `name` (the server's jobs' tools)."""
    parents, names = {}, {}
    for entry in os.listdir("/proc"):
        try:
            stat = open(f"/proc/{entry}/stat").read()
            names[int(entry)] = (
                open(f"/proc/{entry}/cmdline", "rb").read().replace(b"\0", b" ").decode(errors="replace")
            )
        except (OSError, ValueError):
            continue
        if stat.rsplit(")", 1)[1].split()[0] != "Z":  # a zombie is gone for our purposes
            parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])

    def under(p: int) -> bool:
        while p in parents and p > 1:
            p = parents[p]
            if p == pid:
                return True
        return False

    return [p for p in parents if name in names.get(p, "") and under(p)]


async def _open(client, tmp_path):
    path = design(tmp_path)
    uri = client.editor.open(path.read_text(), path=path)
    await client.editor.analysed(uri)
    return path, uri


async def _sweep(client, *args):
    return await client.workspace_execute_command_async(lsp.ExecuteCommandParams(command=SWEEP, arguments=list(args)))


async def test_the_sweep_command_offers_the_files_constants_and_the_synthesis_settings(sweep_client, tmp_path):
    _, uri = await _open(sweep_client, tmp_path)
    answer = await _sweep(sweep_client, uri, "top")
    assert {"name": "ALLO_STANDIN", "value": "ok"} in answer["constants"]
    assert {"name": "M", "value": 8} in answer["constants"] and {"name": "N", "value": 8} in answer["constants"]
    assert [s["name"] for s in answer["settings"]] == ["clock", "part"]


async def test_a_local_sweep_answers_the_table_with_its_pareto_front(sweep_client, tmp_path):
    if not sweep_client.storage_given:
        pytest.skip("the sweep does not depend on the storage: run once")
    path, uri = await _open(sweep_client, tmp_path)
    before = path.read_bytes()
    sets = ["ALLO_STANDIN=ok,build_error", "clock=3.33,5"]
    answer = await _sweep(sweep_client, uri, "top", sets)
    rows = answer["rows"]
    assert [(r["point"]["ALLO_STANDIN"], r["point"]["clock"], r["status"]) for r in rows] == [
        ("ok", 3.33, "passed"),
        ("ok", 5.0, "passed"),
        ("build_error", 3.33, "error"),
        ("build_error", 5.0, "error"),
    ]
    assert answer["status"] == "failed" and answer["message"] == "2 of 4 points synthesized"
    # The stand-in's report for both clocks: equal cycles, so 3.33 ns is faster in real time, but
    # its slack is negative (the template's -0.05 ns): only the 5 ns point is on the front (both
    # were, cycles compared across clock periods and timing ignored).
    assert [r["latency"] for r in rows] == [3624, 3624, None, None]
    assert [r["time_ns"] for r in rows] == [pytest.approx(3624 * 3.33), 3624 * 5.0, None, None]
    assert [r["meets_timing"] for r in rows] == [False, True, None, None]
    assert [r["pareto"] for r in rows] == [False, True, False, False]
    assert answer["fronts"] == {name: [1] for name in ["most used", "BRAM_18K", "DSP", "FF", "LUT", "URAM"]}
    assert rows[0]["resources"]["LUT"] == 0.32 and "LUT%" in answer["columns"]
    # Each point's run.tcl got its clock; each passed point carries its report for the view.
    tcl = [open(os.path.join(r["project"], "run.tcl")).read() for r in rows[:2]]
    assert "create_clock -period 3.33" in tcl[0] and "create_clock -period 5" in tcl[1]
    assert [r["report"] is not None for r in rows] == [True, True, False, False]
    assert rows[0]["report"]["latency"]["worst"] == 3624
    assert path.read_bytes() == before  # the user's file is never edited


async def test_each_points_figures_follow_its_clock_and_arrays_so_the_front_is_not_trivial(sweep_client, tmp_path):
    """The stand-in Vitis's figures follow the inputs (tests/standin/bin/vitis_hls): a clock
    tighter than the template's 3.33 ns re-pipelines (cycles x 3.33/2, rounded up), and M = 512
    makes A and B 512 x 8 int32 (131,072 bits, 8 BRAM_18K each: 16 of 4,032, above LUT's 0.32 %)."""
    if not sweep_client.storage_given:
        pytest.skip("the sweep does not depend on the storage: run once")
    _, uri = await _open(sweep_client, tmp_path)
    answer = await _sweep(sweep_client, uri, "top", ["M=8,512", "clock=2,3.33"])
    rows = answer["rows"]
    assert answer["status"] == "passed", answer["message"]
    tighter = math.ceil(3624 * 3.33 / 2)
    bram = round(100 * 2 * math.ceil(512 * 8 * 32 / (18 * 1024)) / 4032, 2)
    figures = [(r["point"]["M"], r["point"]["clock"], r["latency"], max(r["resources"].values())) for r in rows]
    assert figures == [
        (8, 2.0, tighter, 0.32),
        (8, 3.33, 3624, 0.32),
        (512, 2.0, tighter, bram),
        (512, 3.33, 3624, bram),
    ]
    assert [r["estimated_ns"] < 2.0 for r in rows] == [True, False, True, False]  # re-pipelined for 2 ns
    # The small design at the template's clock is the fastest in real time and the smallest, but
    # every point misses timing (the template's slack of -0.05 ns, scaled): none gets the star.
    assert [r["time_ns"] < 3624 * 3.33 + 1e-6 for r in rows] == [False, True, False, True]
    assert [r["meets_timing"] for r in rows] == [False] * 4
    assert [r["pareto"] for r in rows] == [False] * 4


async def test_each_point_done_is_reported_on_the_clients_progress_token(sweep_client, tmp_path):
    """The notification's "2 of 3 points done": `$/progress` on the token the sweep's fourth
    argument gives, once per point as it ends, before the answer."""
    if not sweep_client.storage_given:
        pytest.skip("the sweep does not depend on the storage: run once")
    _, uri = await _open(sweep_client, tmp_path)
    token = "allo-sweep-progress"
    sweep_client.progress_reports[token] = []  # the client made it (pytest-lsp warns of unknown ones)
    answer = await _sweep(sweep_client, uri, "top", ["clock=3.33,5,10"], {"progress": token})
    assert answer["status"] == "passed", answer["message"]
    reports = sweep_client.progress_reports[token]
    assert [r.message for r in reports] == ["1 of 3 points done", "2 of 3 points done", "3 of 3 points done"]
    assert all(isinstance(r, lsp.WorkDoneProgressReport) for r in reports)


async def test_a_sweep_that_cannot_run_says_what_to_change(sweep_client, tmp_path):
    if not sweep_client.storage_given:
        pytest.skip("the sweep does not depend on the storage: run once")
    _, uri = await _open(sweep_client, tmp_path)
    answer = await _sweep(sweep_client, uri, "top", ["NOT_THERE=1,2"])
    assert answer["status"] == "error" and "no module-level assignment of NOT_THERE" in answer["message"]
    assert answer["rows"] == []


async def test_the_registry_of_cluster_jobs_is_read_from_the_editors_storage(sweep_client, tmp_path, monkeypatch):
    """A cluster job a server before left running, recorded in one of the two storages: the server
    re-attaches to it only where it keeps its jobs (the editor's storage when it is given, else
    the XDG location). Without Slurm's commands on PATH, re-attaching ends at once in that error."""
    from allo_lsp.jobs.slurm_jobs import storage_dir

    monkeypatch.setenv("XDG_STATE_HOME", XDG)  # the server's, for storage_dir here
    path, uri = await _open(sweep_client, tmp_path)
    here = GIVEN if sweep_client.storage_given else storage_dir(None)
    elsewhere = storage_dir(None) if sweep_client.storage_given else GIVEN
    job_id = str(int(time.time() * 1000) % 10**9)  # one per test: the storages outlive a test
    for directory, region in ((here, "top"), (elsewhere, "elsewhere")):
        entry = Submitted(job_id, region, str(path), str(tmp_path / region), time.time(), uri)
        Registry(directory).add(entry)
    # A missing scontrol is the environment's failure: asked with the actions that fix it
    # (window/showMessageRequest, shown by VS Code as a message with buttons).
    asked = sweep_client.asked  # answered by the test client (tests/lsp/editor.py)
    await sweep_client.editor.lenses(uri)  # the first lens request re-attaches
    message = await until(
        lambda: next((m.message for m in asked if "scontrol" in m.message), None),
        what="the re-attached job's error",
        wake=lambda: asyncio.sleep(0.2),
        seen=lambda: [m.message for m in asked],
    )
    assert "scontrol is not on PATH" in message
    # It was this storage's job, on region `top`: its lens shows the outcome, not "⚙ Synthesize".
    titles = await sweep_client.editor.lens_titles(uri)
    assert "⚙ Synthesize" not in titles and "▶ Simulate" in titles, titles
    assert [e.region for e in Registry(here).entries() if e.job_id == job_id] == ["top"]  # kept: not collected


async def test_cancelling_a_local_sweep_ends_its_points_processes(hanging_client, tmp_path):
    """`$/cancelRequest` of the sweep's command (the notification's Cancel): every point's Vitis,
    the running ones and the one still queued, is ended."""
    import asyncio

    _, uri = await _open(hanging_client, tmp_path)
    server = hanging_client._server.pid
    protocol = hanging_client.protocol
    params = lsp.ExecuteCommandParams(command=SWEEP, arguments=[uri, "top", ["clock=3,4,5"]])
    request = asyncio.ensure_future(protocol.send_request_async(lsp.WORKSPACE_EXECUTE_COMMAND, params, msg_id="sweep"))
    tools = await until(
        lambda: _descendants(server, "vitis_hls") or request.done(),
        what="a point's (hanging) vitis_hls",
        wake=file_poll,
        seen=lambda: request,
    )
    assert tools is not True and not request.done(), request
    protocol.notify(lsp.CANCEL_REQUEST, lsp.CancelParams(id="sweep"))
    with pytest.raises(Exception, match="cancel"):
        await asyncio.wait_for(request, 5)
    await until(
        lambda: not _descendants(server, "vitis_hls"),
        what="the sweep's vitis_hls gone",
        wake=file_poll,
        seen=lambda: _descendants(server, "vitis_hls"),
        timeout=15,
    )


async def test_a_ten_thousand_point_sweep_is_refused_at_once_and_hovers_are_answered_meanwhile(sweep_client, tmp_path):
    """10,000 points (100 values of M x 100 of N): refused by alloDataflow.sweep.maxPoints
    before any point is made (it held the server for 133 s checking and analysing them on the
    event loop), and a hover sent after it is answered too. Stall bounds, not timings."""
    import asyncio

    if not sweep_client.storage_given:
        pytest.skip("the sweep does not depend on the storage: run once")
    path, uri = await _open(sweep_client, tmp_path)
    values = ",".join(str(n) for n in range(1, 101))
    sweep = asyncio.ensure_future(_sweep(sweep_client, uri, "top", [f"M={values}", f"N={values}"]))
    line = next(i for i, text in enumerate(path.read_text().splitlines()) if "def producer(" in text)
    hover = await asyncio.wait_for(sweep_client.editor.hover(uri, line, len("    def pro")), 20)
    answer = await asyncio.wait_for(sweep, 20)
    assert hover is not None and "producer" in hover
    assert answer["status"] == "error" and answer["rows"] == []
    assert "10,000 points is more than the 256 allowed (alloDataflow.sweep.maxPoints" in answer["message"]


async def test_hostile_values_are_refused_with_a_message(sweep_client, tmp_path):
    """A value longer than any literal (50,000 '-': MemoryError in the parser), a number that is
    not finite (1e999 was taken as inf): each a clear answer, never -32603 (the request's error)."""
    if not sweep_client.storage_given:
        pytest.skip("the sweep does not depend on the storage: run once")
    _, uri = await _open(sweep_client, tmp_path)
    for sets, needle in (
        (["M=" + "-" * 50_000 + "1"], "--set M: a value of 50,001 characters (at most 200)"),
        (["M=" + "+".join(["1"] * 20_000)], "--set M: a value of 39,999 characters"),
        (["clock=1e999"], "--set clock: '1e999' is not a finite number"),
    ):
        answer = await _sweep(sweep_client, uri, "top", sets)
        assert answer["status"] == "error" and needle in answer["message"], answer


@pytest.mark.parametrize(
    "text",
    [
        "[" * 100_000 + "]" * 100_000,
        '["a", "list"]',
        '{"jobs": [{"job_id": "1", "points": "many", "settings": {"x": 1}}]}',
    ],
    ids=["deep", "list", "ill-typed entry"],
)
async def test_a_hostile_registry_of_cluster_jobs_does_not_fail_the_first_lens_request(sweep_client, tmp_path, text):
    """The first lens request re-attaches to the jobs the registry records: a registry no server
    wrote made it fail (RecursionError, AttributeError) and the jobs recorded were ignored."""
    from allo_lsp.jobs.registry import FILE

    if not sweep_client.storage_given:
        pytest.skip("the registry is read alike from either storage: run once")
    os.makedirs(GIVEN, exist_ok=True)
    with open(os.path.join(GIVEN, FILE), "w") as f:
        f.write(text)
    path = design(tmp_path, name=f"hostile_{abs(hash(text)) % 10**6}.py")
    uri = sweep_client.editor.open(path.read_text(), path=path)
    await sweep_client.editor.analysed(uri)
    titles = await sweep_client.editor.lens_titles(uri)
    assert "⚙ Synthesize" in titles and "▶ Simulate" in titles, titles


async def test_a_point_with_an_unreadable_report_figure_is_one_row_the_others_stand(huge_lut_client, tmp_path):
    """A 400-digit LUT in one point's report raised OverflowError out of the sweep: the editor's
    whole table was lost (-32603). Now that point passes with its LUT unreadable (no LUT% in its
    row, listed under its report's `unreadable`), and the other point's row is whole."""
    _, uri = await _open(huge_lut_client, tmp_path)
    answer = await _sweep(huge_lut_client, uri, "top", ["clock=5,3.33"])
    assert answer["status"] == "passed", answer["message"]
    huge, plain = answer["rows"]
    assert (huge["status"], plain["status"]) == ("passed", "passed")
    assert "LUT" not in huge["resources"] and plain["resources"]["LUT"] == 0.32
    assert huge["latency"] == plain["latency"] == 3624
    assert [u["figure"] for u in huge["report"]["unreadable"]] == ["resources.LUT.used"]


async def test_the_editors_point_limit_is_its_setting(tmp_path):
    """alloDataflow.sweep.maxPoints = 3: a 4-point sweep is refused naming it, before any job."""
    from allo_lsp.session.sweep_editor import command
    from allo_lsp.settings import Settings

    path = design(tmp_path)
    settings = Settings(sweep_max_points=3, trusted=True)
    answer = await command(
        str(path), "top", path.read_text(), (["M=4,8", "N=4,8"],), settings, str(tmp_path), lambda cancel: None
    )
    assert answer["status"] == "error" and answer["rows"] == []
    assert answer["message"].startswith("a sweep of 4 points is more than the 3 allowed (alloDataflow.sweep.maxPoints")
    assert not (tmp_path / "pid.txt").exists()
