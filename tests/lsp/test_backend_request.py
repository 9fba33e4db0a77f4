"""Which backend will run, said by the server (`allo/backend`) and by the lens after a run
(issue 26 item 4): an Allo environment without an LLVM build runs the reference executor, and
the user is told so before and after."""

from conftest import JOB_SETTINGS
from designs import design, fake_llvm_build_dir
from test_jobs import change_settings
from test_region_graph import plain


async def ask(editor) -> dict:
    return plain(await editor.client.protocol.send_request_async("allo/backend", None))


async def test_without_an_llvm_build_the_server_says_the_reference_executor_runs_and_the_lens_agrees(
    job_editor, tmp_path
):
    # The stand-in Allo imports (PYTHONPATH), but no LLVM build is configured.
    await change_settings(job_editor, {**JOB_SETTINGS, "llvmBuildDir": "", "trusted": True})
    answer = await ask(job_editor)
    assert (answer["backend"], answer["reason"]) == ("reference", "LLVM_BUILD_DIR is not set")
    path = design(tmp_path)
    uri = job_editor.open(path.read_text(), path=path)
    await job_editor.diagnostics(uri)
    result = await job_editor.click(uri, "▶ Simulate", "top")
    assert result["backend"] == "reference"
    assert (await job_editor.lens_titles(uri))[0].endswith(" · reference")


async def test_with_an_llvm_build_the_server_says_allo_runs_and_why(job_editor):
    llvm = fake_llvm_build_dir()
    await change_settings(job_editor, {**JOB_SETTINGS, "llvmBuildDir": llvm, "trusted": True})
    answer = await ask(job_editor)
    assert answer["backend"] == "allo" and answer["allo"] is not None
    assert answer["reason"] == f"Allo with the LLVM build at {llvm}"  # the stand-in's version is not known
    await change_settings(job_editor, {**JOB_SETTINGS, "backend": "reference", "trusted": True})
    assert (await ask(job_editor))["reason"] == "alloDataflow.backend is reference"
    await change_settings(job_editor, {**JOB_SETTINGS, "trusted": False})
    assert (await ask(job_editor))["backend"] == ""
