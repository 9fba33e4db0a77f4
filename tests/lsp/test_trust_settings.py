"""Workspace trust fails closed, over stdio: the server runs a job only once it has read
`trusted: true` from the client; a settings answer it cannot read keeps the trust it had (and says
so); before any answer, nothing is trusted. The job is a test function that leaves a marker file
when it runs (the stand-in Allo of the job tests)."""

import asyncio
import os
import sys
import time

from allo_lsp.jobs.registry import Registry, Submitted
from allo_lsp.protocol.vocabulary import WORKSPACE_STORAGE
from designs import design, fake_llvm_build_dir
from editor import Editor, make_client
from lsprotocol import types as lsp
from paths import STANDIN
from pytest_lsp import client_capabilities
from waiting import notification, until

SETTINGS = {"debounceMs": 50, "llvmBuildDir": fake_llvm_build_dir(), "timeout": 20}
MARKS = "\n\ndef test_marks():\n    open(__file__ + '.ran', 'w').close()\n"
UNREAD = "settings could not be read"


def _env(path: str = "") -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "LLVM_BUILD_DIR"}
    env["PYTHONPATH"] = str(STANDIN)
    env["PATH"] = os.pathsep.join(p for p in (path, env.get("PATH", "")) if p)
    return env


async def _server(settings, configuration: bool = True, options=None, path: str = ""):
    """A server whose client answers `settings` as they are, no trust added (`settings` says
    it); without `configuration`, a client that cannot answer workspace/configuration."""
    client = make_client()
    client.adds_trust = False
    client.protocol._converter.register_unstructure_hook(AsIs, lambda v: v.value)
    await client.start_io(sys.executable, "-m", "allo_lsp", "serve", env=_env(path))
    client.editor = Editor(client, "neovim")
    client.get_configuration = lambda section=None, scope_uri=None: settings if section == "alloDataflow" else None
    capabilities = client_capabilities("neovim")
    capabilities.workspace.configuration = configuration
    await client.initialize_session(lsp.InitializeParams(capabilities=capabilities, initialization_options=options))
    return client


async def _run(client, tmp_path) -> tuple[dict, bool]:
    """The test function run as its lens would: (the answer, whether it ran)."""
    path = tmp_path / "design.py"
    if not path.exists():
        design(tmp_path, extra=MARKS)
        await client.editor.diagnostics(client.editor.open(path.read_text(), path=path), 1)
    uri, ran = path.as_uri(), tmp_path / "design.py.ran"
    ran.unlink(missing_ok=True)
    answer = await client.workspace_execute_command_async(
        lsp.ExecuteCommandParams(command="alloDataflow.run", arguments=[uri, "test_marks"])
    )
    return answer, ran.exists()


async def _reconfigure(client, answer) -> None:
    """The settings change, answered by `answer()` (raising: the client fails the request);
    returns once the server has asked."""
    asked, loop = asyncio.Event(), asyncio.get_running_loop()

    def answering(section=None, scope_uri=None):
        if section != "alloDataflow":
            return None
        loop.call_soon(asked.set)  # after the answer is written (see waiting.reconfigured)
        return answer()

    client.get_configuration = answering
    client.workspace_did_change_configuration(lsp.DidChangeConfigurationParams(settings={}))
    await asyncio.wait_for(asked.wait(), 20)


def _unread_messages(client) -> list[str]:
    return [m.message for m in client.messages if UNREAD in m.message]


async def _unreadable(client, answer) -> str:
    """A settings change whose answer the server cannot read: what it says about it."""
    told = len(_unread_messages(client))
    await _reconfigure(client, answer)
    await until(
        lambda: len(_unread_messages(client)) > told,
        what="the message that the settings were not read",
        wake=notification(client, lsp.WINDOW_SHOW_MESSAGE),
    )
    return _unread_messages(client)[-1]


class AsIs:
    """A value the client writes as it is: pygls' cattrs walk of a deep one overflows the
    client's own stack (json.dumps, which writes it, does not)."""

    def __init__(self, value) -> None:
        self.value = value


def deep(depth: int, leaf) -> dict:
    value = leaf
    for _ in range(depth):
        value = {"a": value}
    return value


async def test_a_deep_setting_does_not_drop_an_untrusted_answer(tmp_path):
    """1,500 levels (a `.vscode/settings.json` may hold them) raised RecursionError: the whole
    answer was dropped, trust stayed at its default (true) and the job ran."""
    client = await _server(AsIs({**SETTINGS, "trusted": False, "deep": deep(1_500, 1)}))
    try:
        answer, ran = await _run(client, tmp_path)
        assert not ran and answer["status"] == "error" and "not trusted" in answer["message"], answer
        assert any("nested deeper than" in m.message for m in client.messages)
        # The same answer trusted: the job runs (the deep key alone is not read).
        await _reconfigure(client, lambda: AsIs({**SETTINGS, "trusted": True, "deep": deep(1_500, 1)}))
        answer, ran = await _run(client, tmp_path)
        assert ran and answer["status"] == "passed", answer
    finally:
        await client.shutdown_session()


async def test_before_any_answer_nothing_is_trusted(tmp_path):
    """A client that cannot answer workspace/configuration and names no settings: the server
    trusted by default and ran the job."""
    client = await _server(None, configuration=False)
    try:
        answer, ran = await _run(client, tmp_path)
        assert not ran and "not trusted" in answer["message"], answer
    finally:
        await client.shutdown_session()


async def test_a_first_answer_that_fails_leaves_the_workspace_untrusted(tmp_path):
    def fails():
        raise RuntimeError("the editor could not read its settings")

    client = await _server(None)
    client.get_configuration = lambda section=None, scope_uri=None: fails() if section == "alloDataflow" else None
    try:
        answer, ran = await _run(client, tmp_path)
        assert not ran and "not trusted" in answer["message"], answer
        assert _unread_messages(client), client.messages
    finally:
        await client.shutdown_session()


async def test_an_answer_that_cannot_be_read_keeps_the_trust_before(tmp_path):
    """Trusted, then a failed request and an answer that is no object: still trusted, and told;
    untrusted, then the same: still untrusted."""
    client = await _server({**SETTINGS, "trusted": True})
    try:
        assert (await _run(client, tmp_path))[1]

        def fails():
            raise RuntimeError("no settings today")

        for broken in (fails, lambda: 5):
            assert "(workspace trusted)" in await _unreadable(client, broken)
            answer, ran = await _run(client, tmp_path)
            assert ran and answer["status"] == "passed", answer

        await _reconfigure(client, lambda: {**SETTINGS, "trusted": False})
        assert not (await _run(client, tmp_path))[1]
        for broken in (fails, lambda: "not an object"):
            assert "(workspace not trusted: nothing runs)" in await _unreadable(client, broken)
            answer, ran = await _run(client, tmp_path)
            assert not ran and "not trusted" in answer["message"], answer
    finally:
        await client.shutdown_session()


async def test_initialization_options_are_read_as_the_clients_word(tmp_path):
    """A client without workspace/configuration gives its settings at initialize: a deep key
    there made `initialize` itself fail."""
    options = AsIs({"alloDataflow": {**SETTINGS, "trusted": False, "deep": deep(1_500, 1)}})
    client = await _server(None, configuration=False, options=options)
    try:
        answer, ran = await _run(client, tmp_path)
        assert not ran and "not trusted" in answer["message"], answer
    finally:
        await client.shutdown_session()


async def test_cluster_jobs_are_followed_only_in_a_trusted_workspace(tmp_path):
    """Following a cluster job a server before left runs Slurm's commands (over ssh with a
    login host): the first code lens request started them in an untrusted workspace too."""
    storage, bin_dir, ran = tmp_path / "storage", tmp_path / "bin", tmp_path / "scontrol.ran"
    storage.mkdir()
    bin_dir.mkdir()
    (bin_dir / "scontrol").write_text(f'#!/bin/sh\necho "$@" >> {ran}\nexit 1\n')
    (bin_dir / "scontrol").chmod(0o755)
    path = design(tmp_path, extra=MARKS)
    entry = Submitted("4711", "top", str(path), str(tmp_path / "job"), time.time(), path.as_uri())
    Registry(str(storage)).add(entry)
    settings = {**SETTINGS, "trusted": False, "scheduler": "slurm"}
    client = await _server(settings, options={WORKSPACE_STORAGE: str(storage)}, path=str(bin_dir))
    try:
        uri = client.editor.open(path.read_text(), path=path)
        await client.editor.diagnostics(uri, 1)
        await client.editor.lenses(uri)
        await asyncio.sleep(1)  # what a follower would take to ask (it asks at once)
        assert not ran.exists(), ran.read_text()
        await _reconfigure(client, lambda: {**settings, "trusted": True})
        await client.editor.lenses(uri)
        await until(
            lambda: ran.exists() and "4711" in ran.read_text(),  # the shell makes the file before it writes
            what="scontrol asked about job 4711",
            wake=lambda: asyncio.sleep(0.1),
        )
    finally:
        await client.shutdown_session()


async def test_a_bad_value_given_at_initialize_is_told():
    """A warning on a setting given in initializationOptions reaches the client, once: during
    `initialize` the protocol allows window/showMessage (issue 28 found these dropped)."""
    client = await _server(None, configuration=False, options={"alloDataflow": {**SETTINGS, "timeout": -1}})
    try:
        await until(
            lambda: any("timeout must be a positive" in m.message for m in client.messages),
            what="the warning on alloDataflow.timeout",
            wake=notification(client, lsp.WINDOW_SHOW_MESSAGE),
            seen=lambda: [m.message for m in client.messages],
        )
        (message,) = [m.message for m in client.messages if "timeout must be a positive" in m.message]
        assert message.startswith("allo-lsp: ")
    finally:
        await client.shutdown_session()
