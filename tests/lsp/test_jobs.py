"""Jobs through the server, as a user runs them: lens -> command -> lens title and diagnostic.

The runner imports the stand-in Allo (tests/standin); each design says how it should behave.
"""

import asyncio

import pytest
from designs import alive, design, fake_llvm_build_dir, line_of, pids
from lsprotocol import types as lsp
from paths import EXAMPLES
from waiting import any_done, file_poll, notification, reconfigured, until


async def open_design(editor, tmp_path, behaviour="ok", extra=""):
    path = design(tmp_path, behaviour, extra)
    uri = editor.open(path.read_text(), path=path)
    await editor.diagnostics(uri)
    return path, uri


def _state(job: asyncio.Future | None) -> str:
    if job is None or not job.done():
        return "running"
    return repr(job.exception()) if job.exception() else repr(job.result())


async def runners_up(path, count: int = 1, job: asyncio.Future | None = None) -> None:
    """`count` runners have imported the design (each writes its pid beside it): the job really
    runs. Fails at once if `job` (the command) ends first."""
    await until(
        lambda: len(pids(path)) >= count or (job is not None and job.done()),
        what=f"{count} runner pid(s) in {path.parent / 'pid.txt'}",
        wake=file_poll,
        seen=lambda: (pids(path), _state(job)),
    )
    assert len(pids(path)) >= count, f"the job ended before {count} runner(s) were up: {_state(job)}"


async def run_problems(editor, uri: str, count: int | None = None) -> list[lsp.Diagnostic]:
    """The job's diagnostics once a publication has them (`count` of them if given)."""

    def ready():
        found = editor.run_diagnostics(uri)
        return found if found and (count is None or len(found) == count) else None

    what = "the job's diagnostics" + (f" ({count})" if count else "")
    return await editor.until_published(uri, ready, what)


async def change_settings(editor, settings: dict) -> None:
    """New settings, once the server has them (`click` then starts with a lens request, whose
    round trip leaves the server time to apply them)."""
    client = editor.client

    def send():
        client.set_configuration(settings, section="alloDataflow")
        client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(settings={}))

    await reconfigured(client, "alloDataflow", send)


async def test_lenses_before_any_run(job_editor, tmp_path):
    _, uri = await open_design(job_editor, tmp_path)
    assert await job_editor.lens_titles(uri) == ["▶ Simulate", "⚙ Synthesize", "MLIR", "▶ Run"]


async def test_lenses_follow_edits_and_jobs(job_editor, tmp_path):
    """The lenses are encoded once per analysis, document version and state of the jobs: asked
    twice they are the same; asked right after an edit that moves the region down (before its
    analysis, debounced) they move with it; while a job runs they say so."""
    path, uri = await open_design(job_editor, tmp_path, "hang")
    before = await job_editor.lenses(uri)
    assert await job_editor.lenses(uri) == before
    version = job_editor.type_at(uri, 0, 0, "\n\n")
    moved = await job_editor.lenses(uri)
    assert [lens.range.start.line for lens in moved] == [lens.range.start.line + 2 for lens in before]
    await job_editor.diagnostics(uri, version)
    assert await job_editor.lenses(uri) == moved
    running = asyncio.ensure_future(job_editor.click(uri, "▶ Simulate", "top"))
    await runners_up(path, job=running)
    assert (await job_editor.lens_titles(uri))[0].startswith("⏳ running")
    await job_editor.client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command="alloDataflow.cancelJob", arguments=[])
    )
    assert (await asyncio.wait_for(running, 10))["status"] == "cancelled"
    assert (await job_editor.lens_titles(uri))[0] == "▶ Simulate: cancelled"


async def test_simulate_passes_and_the_lens_says_so(job_editor, tmp_path):
    _, uri = await open_design(job_editor, tmp_path)
    result = await job_editor.click(uri, "▶ Simulate", "top")
    assert (result["status"], result["backend"], result["omp_num_threads"]) == ("passed", "allo", 2)
    titles = await job_editor.lens_titles(uri)
    # The backend that ran it, named (the reference executor is not Allo's simulator).
    assert titles[0].startswith("▶ Simulate: ✓ passed") and titles[0].endswith(" s · allo")
    # The stand-in computes nothing, so the reference executor's outputs differ: a finding.
    await run_problems(job_editor, uri)
    (diag,) = job_editor.run_diagnostics(uri)
    assert (diag.code, diag.severity) == ("differential", lsp.DiagnosticSeverity.Warning)
    assert "disagree on B" in diag.message


@pytest.mark.parametrize(
    ("behaviour", "target", "lens", "cause", "needle"),
    [
        ("ok", "test_producer_consumer", "▶ Run", "assertion", "np.testing.assert_array_equal"),
        ("build_error", "top", "▶ Simulate", "allo_error", "@df.kernel(mapping=[1], args=[A, n])"),
    ],
)
async def test_failures_leave_a_diagnostic_at_the_line(job_editor, tmp_path, behaviour, target, lens, cause, needle):
    path, uri = await open_design(job_editor, tmp_path, behaviour)
    result = await job_editor.click(uri, lens, target)
    line = line_of(path, needle)
    assert (result["cause"], result["line"]) == (cause, line)
    title = next(t for t in await job_editor.lens_titles(uri) if t.startswith(lens))
    assert title == f"{lens}: ✗ {cause} line {line} · allo"  # the backend that ran it
    await run_problems(job_editor, uri)
    (diag,) = job_editor.run_diagnostics(uri)
    assert diag.range.start.line == line - 1 and diag.code == cause
    # The next edit clears it.
    version = job_editor.type_at(uri, 0, 0, "#")
    await job_editor.diagnostics(uri, version)
    assert job_editor.run_diagnostics(uri) == []


async def test_user_error_runs_the_unsaved_text(job_editor, tmp_path):
    path, uri = await open_design(job_editor, tmp_path)
    # Typed in the editor, never saved: the job must run what the user sees.
    text = (
        job_editor.texts[uri]
        + "\n\ndef test_broken():\n    mod = df.build(top, target='simulator')\n    raise ValueError('typed, not saved')\n"
    )
    version = job_editor.replace_all(uri, text)
    await job_editor.diagnostics(uri, version)
    result = await job_editor.click(uri, "▶ Run", "test_broken")
    assert (result["status"], result["cause"]) == ("failed", "user_error")
    assert result["line"] == len(text.splitlines()) and "typed, not saved" in result["message"]


@pytest.mark.parametrize(
    ("behaviour", "status", "cause", "title"),
    [
        ("compiler_bug", "error", "library_bug", "▶ Simulate: ✗ library_bug"),
        # The runner leaves with os._exit right after its result: Allo's (OpenMP's) crash at
        # interpreter exit never happens.
        ("segfault_at_exit", "passed", None, "▶ Simulate: ✓ passed"),
        ("segfault", "crashed", "crash", "▶ Simulate: ✗ crash"),
        ("glibc", "error", "environment", "▶ Simulate: ✗ environment"),
    ],
)
async def test_outcomes_in_the_lens(job_editor, tmp_path, behaviour, status, cause, title):
    _, uri = await open_design(job_editor, tmp_path, behaviour)
    result = await job_editor.click(uri, "▶ Simulate", "top")
    assert (result["status"], result["cause"]) == (status, cause)
    assert title in (await job_editor.lens_titles(uri))[0]


async def test_missing_llvm_build_dir_runs_nothing(job_editor, tmp_path):
    path, uri = await open_design(job_editor, tmp_path)
    await change_settings(job_editor, {"debounceMs": 50, "llvmBuildDir": "", "backend": "allo"})
    result = await job_editor.click(uri, "▶ Simulate", "top")
    assert result["cause"] == "environment" and "LLVM_BUILD_DIR is not set" in result["message"]
    assert pids(path) == []


async def test_timeout_and_cancel(job_editor, tmp_path):
    path, uri = await open_design(job_editor, tmp_path, "hang")
    await change_settings(job_editor, {"debounceMs": 50, "llvmBuildDir": fake_llvm_build_dir(), "timeout": 2})
    result = await job_editor.click(uri, "▶ Simulate", "top")
    assert result["status"] == "timeout" and "OMP_NUM_THREADS=2" in result["message"]
    assert "⏱ timeout" in (await job_editor.lens_titles(uri))[0]
    # A job cancelled while it runs: the progress ends and the process is gone.
    await change_settings(job_editor, {"debounceMs": 50, "llvmBuildDir": fake_llvm_build_dir(), "timeout": 60})
    running = asyncio.ensure_future(job_editor.click(uri, "▶ Simulate", "top"))
    await runners_up(path, 2, job=running)
    assert (await job_editor.lens_titles(uri))[0].startswith("⏳ running")
    cancelled = await job_editor.client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command="alloDataflow.cancelJob", arguments=[])
    )
    assert cancelled is True
    assert (await asyncio.wait_for(running, 10))["status"] == "cancelled"
    assert not any(alive(p) for p in pids(path))
    if job_editor.name == "visual_studio_code":  # it supports work-done progress
        reports = list(job_editor.client.progress_reports.values())[-1]
        assert reports[0].kind == "begin" and reports[0].cancellable
        assert reports[-1].kind == "end"


async def test_untrusted_workspace_runs_nothing(job_editor, tmp_path):
    path, uri = await open_design(job_editor, tmp_path)
    await change_settings(job_editor, {**{"debounceMs": 50}, "llvmBuildDir": fake_llvm_build_dir(), "trusted": False})
    result = await job_editor.click(uri, "▶ Simulate", "top")
    assert result["status"] == "error" and "not trusted" in result["message"]
    assert pids(path) == []


async def test_run_jobs_are_code_actions_too(job_editor, tmp_path):
    path, uri = await open_design(job_editor, tmp_path)
    line = line_of(path, "def top(") - 1
    actions = await job_editor.client.text_document_code_action_async(
        lsp.CodeActionParams(
            lsp.TextDocumentIdentifier(uri),
            lsp.Range(lsp.Position(line, 0), lsp.Position(line, 0)),
            lsp.CodeActionContext(diagnostics=[]),
        )
    )
    titles = [a.title for a in actions]
    assert "Simulate region 'top'" in titles and "Show MLIR of region 'top'" in titles


async def test_library_bug_offers_a_reproducer_file(job_editor, tmp_path):
    path, uri = await open_design(job_editor, tmp_path, "compiler_bug")
    await job_editor.click(uri, "▶ Simulate", "top")
    await run_problems(job_editor, uri)
    (diag,) = job_editor.run_diagnostics(uri)
    actions = await job_editor.client.text_document_code_action_async(
        lsp.CodeActionParams(lsp.TextDocumentIdentifier(uri), diag.range, lsp.CodeActionContext(diagnostics=[diag]))
    )
    (action,) = [a for a in actions if a.title.startswith("Write a minimal reproducer")]
    create, edit = action.edit.document_changes
    assert create.uri == (tmp_path / "design_top_repro.py").as_uri()
    script = edit.edits[0].new_text
    assert "cannot be converted to LLVM IR" in script and 'mod = df.build(top, target="simulator")' in script
    # Closed and reopened: the reproducer went with the document (`forget`), even asked for
    # with the diagnostic the client still holds.
    text = path.read_text()
    job_editor.client.text_document_did_close(lsp.DidCloseTextDocumentParams(lsp.TextDocumentIdentifier(uri)))
    job_editor.versions[uri], job_editor.texts[uri] = 1, text
    job_editor.client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri=uri, language_id="python", version=1, text=text))
    )
    await job_editor.diagnostics(uri, 1)
    actions = await job_editor.client.text_document_code_action_async(
        lsp.CodeActionParams(lsp.TextDocumentIdentifier(uri), diag.range, lsp.CodeActionContext(diagnostics=[diag]))
    )
    assert not [a for a in actions if a.title.startswith("Write a minimal reproducer")]


ORDER_DESIGN = (EXAMPLES / "pitfall_arg_order.py").read_text()


async def test_show_mlir_checks_the_compiled_signature(job_editor, tmp_path):
    path, uri = await open_design(job_editor, tmp_path)
    result = await job_editor.click(uri, "MLIR", "top")
    assert result["status"] == "passed" and "func.func @top(" in result["mlir"]
    assert result["mlirUri"] == f"allo-mlir:{path}/top.mlir" and result["parseError"] is None
    # The client opens the view: it is not Python, so it is not analysed (no ADF900 on MLIR).
    job_editor.client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(
            lsp.TextDocumentItem(uri=result["mlirUri"], language_id="mlir", version=1, text=result["mlir"])
        )
    )
    assert [f["name"] for f in result["functions"]] == ["producer_0", "consumer_0", "top"]
    # In the view, go to definition on @top leads to the region.
    line = next(i for i, l in enumerate(result["mlir"].splitlines()) if "@top" in l)
    col = result["mlir"].splitlines()[line].index("@top") + 2
    target = await job_editor.client.text_document_definition_async(
        lsp.DefinitionParams(lsp.TextDocumentIdentifier(result["mlirUri"]), lsp.Position(line, col))
    )
    assert target.uri == uri and target.range.start.line == line_of(path, "def top(") - 1
    # Its outline names the functions by what they implement.
    symbols = await job_editor.client.text_document_document_symbol_async(
        lsp.DocumentSymbolParams(lsp.TextDocumentIdentifier(result["mlirUri"]))
    )
    assert [(s.name, s.detail) for s in symbols] == [
        ("producer_0", "kernel producer, PE 0"),
        ("consumer_0", "kernel consumer, PE 0"),
        ("top", "the top function"),
    ]


async def test_an_older_build_order_is_an_error_on_the_region(job_editor, tmp_path):
    path = tmp_path / "order.py"
    path.write_text(ORDER_DESIGN.replace("\nN = ", '\nALLO_STANDIN_ORDER = "legacy"\nN = ', 1))
    assert "ALLO_STANDIN_ORDER" in path.read_text()
    uri = job_editor.open(path.read_text(), path=path)
    await job_editor.diagnostics(uri)
    result = await job_editor.click(uri, "MLIR", "top")
    assert result["status"] == "passed"
    mlir = await job_editor.until_published(
        uri,
        lambda: [d for d in job_editor.published[uri][-1].diagnostics if d.source == "allo-lsp mlir"],
        "the MLIR job's diagnostic",
    )
    (diag,) = mlir
    assert diag.severity == lsp.DiagnosticSeverity.Error and diag.range.start.line == line_of(path, "def top(") - 1
    assert "mod(arr_in, n, arr_out)" in diag.message and "older build" in diag.message
    assert "takes top(arr_in: memref<16xi32>, n: memref<1xi32>, arr_out: memref<16xi32>)" in diag.message


async def test_auto_build_follows_the_probe(job_editor, tmp_path):
    path = tmp_path / "order.py"
    path.write_text(ORDER_DESIGN)
    uri = job_editor.open(path.read_text(), path=path)
    (before,) = [d for d in await job_editor.diagnostics(uri) if d.code == "ADF003"]
    assert before.severity == lsp.DiagnosticSeverity.Warning
    await job_editor.click(uri, "MLIR", "top")  # the first job starts the probe (a fixed stand-in)

    def probed():
        adf003 = [d for d in job_editor.published[uri][-1].diagnostics if d.code == "ADF003"]
        return adf003 if adf003 and adf003[0].severity == lsp.DiagnosticSeverity.Information else None

    adf003 = await job_editor.until_published(uri, probed, "ADF003 as information once the probe found the build")
    assert adf003[0].severity == lsp.DiagnosticSeverity.Information


async def test_cancelling_the_progress_cancels_the_job(job_editor, tmp_path):
    if job_editor.name != "visual_studio_code":
        pytest.skip("this client's capabilities have no work-done progress")
    path, uri = await open_design(job_editor, tmp_path, "hang")
    running = asyncio.ensure_future(job_editor.click(uri, "▶ Simulate", "top"))
    await runners_up(path, job=running)
    token = list(job_editor.client.progress_reports)[-1]
    job_editor.client.window_work_done_progress_cancel(lsp.WorkDoneProgressCancelParams(token=token))
    assert (await asyncio.wait_for(running, 10))["status"] == "cancelled"
    assert not any(alive(p) for p in pids(path))
    assert job_editor.client.progress_reports[token][-1].kind == "end"


async def test_reference_backend_simulates_and_finds_deadlocks(job_editor, tmp_path):
    await change_settings(job_editor, {"debounceMs": 50, "backend": "reference"})
    path = tmp_path / "deadlock.py"
    path.write_text((EXAMPLES / "pitfall_deadlock_stream.py").read_text())
    uri = job_editor.open(path.read_text(), path=path)
    await job_editor.diagnostics(uri)
    result = await job_editor.click(uri, "▶ Simulate", "top")
    assert (result["status"], result["cause"], result["backend"]) == ("failed", "deadlock", "reference")
    await run_problems(job_editor, uri, 3)
    lines = sorted(d.range.start.line + 1 for d in job_editor.run_diagnostics(uri))
    # Each blocked put/get, and the declaration whose elements a deeper FIFO leaves unread: an
    # imbalance, not a depth (tests/lsp/test_fifo_leftover.py has the rest).
    assert lines == [line_of(path, "tap: Stream"), line_of(path, "tap.put("), line_of(path, "pipe.get()")]
    assert "✗ deadlock" in (await job_editor.lens_titles(uri))[0]
    (imbalance,) = [d for d in job_editor.run_diagnostics(uri) if d.code == "fifo_leftover"]
    assert "not a FIFO depth problem" in imbalance.message
    # The stream's hover: what the run saw (the producer filled `tap` and waited on it).
    hover = await job_editor.hover(uri, line_of(path, "tap: Stream") - 1, 5)
    assert "Last reference run: 4 puts, 0 gets; occupancy at most 4 of depth 4; blocked longest: `producer_0`" in hover


async def test_synthesis_figures_in_place(job_editor, tmp_path):
    path, uri = await open_design(job_editor, tmp_path)
    assert "⚙ Synthesize" in await job_editor.lens_titles(uri)
    result = await job_editor.click(uri, "⚙ Synthesize", "top")
    assert result["status"] == "passed", result["message"]
    titles = await job_editor.lens_titles(uri)
    # The stand-in's report: worst latency 3,624 cycles, II up to 1,813, LUT 0.32 %, 2.433 ns.
    assert "⚙ 3,624 cycles · II 1,813 · LUT 0.32% · 2.433 ns" in titles and "Report" in titles
    # Negative slack in the report: a warning on the region.
    timing = await job_editor.until_published(
        uri, lambda: [d for d in job_editor.run_diagnostics(uri) if d.code == "timing"], "the timing warning"
    )
    assert timing[0].severity == lsp.DiagnosticSeverity.Warning and "slack -0.05 ns" in timing[0].message
    # Each kernel's PE module: in its hover and as an inlay hint.
    line = line_of(path, "def producer(") - 1
    hover = await job_editor.hover(uri, line, job_editor.texts[uri].splitlines()[line].index("producer") + 2)
    assert "| `producer_0` | 68 ~ 132 | 68 ~ 132 | 0 | 3 | 1,100 | 1,690 | 0 |" in hover  # RESOURCES order
    hints = await job_editor.client.text_document_inlay_hint_async(
        lsp.InlayHintParams(lsp.TextDocumentIdentifier(uri), lsp.Range(lsp.Position(0, 0), lsp.Position(200, 0)))
    )
    assert "⚙ 132 cycles" in [h.label for h in hints]
    # The report view, then the change against the previous run.
    first = await job_editor.click(uri, "Report", "top")
    assert "| Resource | Used | Available | Utilisation |" in first["markdown"]
    await job_editor.click(uri, "⚙", "top")
    second = await job_editor.click(uri, "Report", "top")
    assert second["markdown"].rstrip().endswith("### Change since the previous run\n\nNo figure changed.")


# -- one job per target, cancelling at once, documents that are not files ------------------------


async def test_repeated_clicks_run_one_job_and_the_running_lens_cancels_it(job_editor, tmp_path):
    """50 clicks on one lens ran 48 jobs. Now the first runs; the others answer that it is
    running, start nothing, and the running lens (its title says so) cancels it, answering at
    once although the job hangs."""
    path, uri = await open_design(job_editor, tmp_path, "hang")
    clicks = [
        asyncio.ensure_future(
            job_editor.client.workspace_execute_command_async(
                lsp.ExecuteCommandParams(command="alloDataflow.simulate", arguments=[uri, "top"])
            )
        )
        for _ in range(50)
    ]
    await runners_up(path)
    await until(
        lambda: sum(c.done() for c in clicks) >= 49,
        what="49 of the 50 clicks answered",
        wake=any_done(clicks),
        seen=lambda: [c.result() for c in clicks if c.done()][:3],
    )
    answered = [c.result() for c in clicks if c.done()]
    assert len(answered) == 49 and all(a["status"] == "running" for a in answered), answered[:2]
    (lens,) = [lens for lens in await job_editor.lenses(uri) if list(lens.command.arguments[1:]) == ["top", "simulate"]]
    assert lens.command.title == "⏳ running… (click to cancel)" and lens.command.command == "alloDataflow.cancelJob"
    loop = asyncio.get_running_loop()
    start = loop.time()
    assert (
        await job_editor.client.workspace_execute_command_async(
            lsp.ExecuteCommandParams(command=lens.command.command, arguments=lens.command.arguments)
        )
        is True
    )
    assert loop.time() - start < 1.0
    results = await asyncio.wait_for(asyncio.gather(*clicks), 10)
    assert [r["status"] for r in results].count("cancelled") == 1
    assert len(pids(path)) == 1  # one runner ever started
    assert not any(alive(p) for p in pids(path))


async def test_cancel_request_of_a_running_command_cancels_its_job(job_editor, tmp_path):
    """pygls answers `$/cancelRequest` "cancelled" and let the job run on, its progress never
    ending."""
    path, uri = await open_design(job_editor, tmp_path, "hang")
    protocol = job_editor.client.protocol
    request = asyncio.ensure_future(
        protocol.send_request_async(
            lsp.WORKSPACE_EXECUTE_COMMAND,
            lsp.ExecuteCommandParams(command="alloDataflow.simulate", arguments=[uri, "top"]),
            msg_id="simulate-top",
        )
    )
    await runners_up(path, job=request)
    logs = job_editor.client.log_messages
    logged = len(logs)
    protocol.notify(lsp.CANCEL_REQUEST, lsp.CancelParams(id="simulate-top"))
    with pytest.raises(Exception, match="cancel"):
        await asyncio.wait_for(request, 5)
    # The job ends (the request's answer did not wait for it): the server logs its outcome,
    # then its lens says so.
    await until(
        lambda: any(m.message.startswith("[top] cancelled") for m in logs[logged:]),
        what="the cancelled job's outcome in the log",
        wake=notification(job_editor.client, lsp.WINDOW_LOG_MESSAGE),
        seen=lambda: [m.message[:100] for m in logs[logged:]],
    )
    assert (await job_editor.lens_titles(uri))[0] == "▶ Simulate: cancelled"
    assert not any(alive(p) for p in pids(path))
    if job_editor.name == "visual_studio_code":  # it supports work-done progress
        assert list(job_editor.client.progress_reports.values())[-1][-1].kind == "end"


@pytest.mark.parametrize(
    ("uri", "needle"),
    [
        ("untitled:Untitled-1", "save the file first"),
        ("vscode-notebook-cell:/w/nb.ipynb#W0sZmlsZQ%3D%3D", "notebook cells are not supported"),
        ("http://example.com/design.py", "only files on disk run"),
    ],
)
async def test_documents_that_are_not_files_run_nothing_and_say_why(job_editor, tmp_path, uri, needle):
    text = design(tmp_path).read_text()
    job_editor.versions[uri], job_editor.texts[uri] = 1, text
    job_editor.client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri=uri, language_id="python", version=1, text=text))
    )
    await job_editor.diagnostics(uri)
    result = await job_editor.client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command="alloDataflow.simulate", arguments=[uri, "top"])
    )
    assert result["status"] == "error" and needle in result["message"], result
    assert pids(tmp_path / "design.py") == []


async def test_a_huge_failure_message_is_bounded_in_the_answer_the_diagnostic_and_the_log(job_editor, tmp_path):
    path, uri = await open_design(
        job_editor,
        tmp_path,
        extra="\n\ndef test_huge():\n    mod = df.build(top, target='simulator')\n    assert False, 'x' * 50_000_000\n",
    )
    logs_before = len(job_editor.client.log_messages)
    result = await job_editor.click(uri, "▶ Run", "test_huge")
    assert result["cause"] == "assertion" and len(result["message"]) < 10_000
    await run_problems(job_editor, uri)
    (diag,) = job_editor.run_diagnostics(uri)
    assert len(diag.message) < 10_000
    assert max(len(m.message) for m in job_editor.client.log_messages[logs_before:]) < 40_000


async def test_a_diagnostic_of_a_job_is_for_the_text_it_ran(job_editor, tmp_path):
    """Not shown on a text edited while the job ran, and gone with the document: it survived
    `didClose` and came back, at a line past the end, when the file was opened again."""
    slow = "\n\ndef test_slow():\n    import time\n    mod = df.build(top, target='simulator')\n    time.sleep(1.0)\n    assert False, 'slow'\n"
    path, uri = await open_design(job_editor, tmp_path, extra=slow)
    running = asyncio.ensure_future(job_editor.click(uri, "▶ Run", "test_slow"))
    await runners_up(path, job=running)
    version = job_editor.type_at(uri, 0, 0, "#\n")
    await job_editor.diagnostics(uri, version)
    assert (await asyncio.wait_for(running, 30))["cause"] == "assertion"
    assert job_editor.run_diagnostics(uri) == []  # a diagnostic is published before the answer
    # Run again on this text: the diagnostic is shown; then the file is closed and reopened short.
    result = await job_editor.click(uri, "▶ Run", "test_slow")
    await run_problems(job_editor, uri)
    (diag,) = job_editor.run_diagnostics(uri)
    assert diag.range.start.line == result["line"] - 1
    job_editor.client.text_document_did_close(lsp.DidCloseTextDocumentParams(lsp.TextDocumentIdentifier(uri)))
    job_editor.published.pop(uri, None)  # what is published from now on
    short = "import allo\n"
    job_editor.versions[uri], job_editor.texts[uri] = 1, short
    job_editor.client.text_document_did_open(
        lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri=uri, language_id="python", version=1, text=short))
    )
    await job_editor.diagnostics(uri, 1)
    assert job_editor.run_diagnostics(uri) == []


async def test_two_spellings_of_a_uri_are_two_documents(job_editor, tmp_path):
    """`c%20d.py` and `c d.py`: two documents for the client (each with its own text, lenses
    and jobs), one for pygls, which keys documents by the unquoted URI."""
    (tmp_path / "c d").mkdir()
    path = design(tmp_path / "c d")
    encoded = path.as_uri()
    assert "%20" in encoded
    raw = "file://" + str(path)
    extra = "\n\ndef test_b():\n    mod = df.build(top, target='simulator')\n"
    for uri, text in ((encoded, path.read_text()), (raw, path.read_text() + extra)):
        job_editor.versions[uri], job_editor.texts[uri] = 1, text
        job_editor.client.text_document_did_open(
            lsp.DidOpenTextDocumentParams(lsp.TextDocumentItem(uri=uri, language_id="python", version=1, text=text))
        )
        await job_editor.diagnostics(uri)
    names = {uri: [lens.command.arguments[1] for lens in await job_editor.lenses(uri)] for uri in (encoded, raw)}
    assert "test_b" not in names[encoded] and "test_b" in names[raw], names
    assert (await job_editor.click(raw, "▶ Run", "test_b"))["status"] == "passed"
    assert not any(t.startswith("▶ Run: ") for t in await job_editor.lens_titles(encoded))
