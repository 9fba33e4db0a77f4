"""Hostile settings answers, through the real server over stdio: deep, wrongly typed, huge, not
an object, not one answer per section, trust spelt otherwise. After each the server still answers,
and the workspace is trusted exactly when the answer read said `trusted: true` (an answer that
cannot be read keeps the trust before). Seeded, a bounded number of cases.

A raw client (`raw_client.py`) writes each answer as JSON text, at any depth; the trust is asked
with a job command on a document that is not open: an untrusted server refuses it for the trust,
a trusted one for the document, and nothing runs either way."""

import json
import random

from allo_lsp.lsp.server import CONFIGURATION_WAIT_S
from raw_client import RawServer, frame

CASES = 30
SEED = 25
NOT_OPEN = "file:///tmp/allo-lsp-hostile-settings/not-open.py"
KEYS = ["alloBuild", "debounceMs", "python", "timeout", "backend", "emulate", "logLevel", "scheduler", "ompThreads"]
NESTED = {
    "vitis": ["part", "clockNs", "launcherPrefix", "timeout"],
    "slurm": ["loginHost", "time", "cpus", "extraArgs"],
}


TOO_DEEP = '"too deep to encode"'  # replaced in the answer's text by `too_deep_text`


def too_deep_text(depth: int) -> str:
    """JSON `depth` objects deep, as text: json.dumps refuses near 10,000 levels (so does the
    server's reader, which is the point)."""
    return '{"a": ' * depth + "1" + "}" * depth


class HostileClient(RawServer):
    """Answers workspace/configuration with `self.answer`, JSON text written as it is."""

    answer = "[null]"

    async def _answer(self, request: dict) -> None:
        if request["method"] != "workspace/configuration":
            return await super()._answer(request)
        await self.write(
            frame(
                b'{"jsonrpc": "2.0", "id": %s, "result": %s}'
                % (json.dumps(request["id"]).encode(), self.answer.encode())
            )
        )


def deep(depth: int, leaf):
    """Objects (an odd depth) or arrays, `depth` levels deep."""
    value = leaf
    for _ in range(depth):
        value = {"a": value} if depth % 2 else [value]
    return value


def wrong_value(rng: random.Random):
    return rng.choice(
        [
            None,
            True,
            -1,
            10**30,
            1.5e308,
            "",
            "x" * rng.choice([1, 10_000, 1_000_000]),
            "-oProxyCommand=touch /tmp/pwned",
            "line\nbreak",
            [1, "2", None],
            {"nested": {"object": 1}},
            deep(rng.randint(50, 3_000), 1),
        ]
    )


def trust_value(rng: random.Random):
    """What the answer says of trust: (the JSON, whether it trusts)."""
    value = rng.choice([True, False, "true", 1, None, [True], {"trusted": True}, deep(2_000, True), "missing"])
    return value, value is True


def section(rng: random.Random) -> tuple[object, bool | None]:
    """One hostile `alloDataflow` section: (it, the trust it means; None: it cannot be read)."""
    shape = rng.random()
    if shape < 0.15:
        return rng.choice([5, "settings", [{"trusted": True}], True, 0.5]), None
    answer: dict = {}
    for key in rng.sample(KEYS, rng.randint(0, len(KEYS))):
        answer[key] = wrong_value(rng)
    for group, keys in NESTED.items():
        if rng.random() < 0.5:
            answer[group] = {k: wrong_value(rng) for k in rng.sample(keys, rng.randint(1, len(keys)))}
        elif rng.random() < 0.3:
            answer[group] = wrong_value(rng)
    unparsed = rng.random() < 0.1
    if unparsed:  # deeper than the server's JSON reader goes: the answer never settles the request
        answer["deep"] = TOO_DEEP
    elif rng.random() < 0.3:  # deeper than settings.MAX_DEPTH: reported, not read
        answer["deep"] = deep(rng.randint(17, 5_000), "leaf")
    if rng.random() < 0.1:
        answer.update({f"k{i}": i for i in range(50_000)})  # a huge object
    if rng.random() < 0.2:
        answer["Trusted"] = True  # another spelling: never trust
    value, trusts = trust_value(rng)
    if value != "missing":
        answer["trusted"] = value
    return answer, None if unparsed else trusts


def configuration_result(rng: random.Random) -> tuple[str, bool | None]:
    """The whole answer to workspace/configuration (one value per section asked, or not) as text."""
    one, trusts = section(rng)
    result, shape = [one], rng.random()
    if shape < 0.1:
        result, trusts = rng.choice([[], [one, one], {"alloDataflow": one}, None]), None
    return json.dumps(result).replace(TOO_DEEP, too_deep_text(rng.randint(12_000, 20_000))), trusts


async def job_answer(server: RawServer) -> dict:
    """A job's answer on a document that is not open: refused, for the trust or for the document."""
    answer = await server.request(
        "workspace/executeCommand", {"command": "alloDataflow.simulate", "arguments": [NOT_OPEN, "top"]}, timeout=30
    )
    return answer["result"]


async def trusted(server: RawServer) -> bool:
    """Whether the server would run a job now (nothing runs: the document is not open)."""
    return "not trusted" not in (await job_answer(server))["message"]


async def test_hostile_settings_answers_leave_the_server_answering_and_trust_closed():
    rng = random.Random(SEED)
    server = await HostileClient.start()
    try:
        await server.request(
            "initialize",
            {"processId": None, "rootUri": None, "capabilities": {"workspace": {"configuration": True}}},
        )
        await server.notify("initialized")
        assert not await trusted(server)  # before any trusted answer
        expected, seen = False, []
        for case in range(CASES):
            server.answer, trusts = configuration_result(rng)
            since = len(server.messages)
            await server.notify("workspace/didChangeConfiguration", {"settings": None})
            await server.wait_for(lambda m: m.get("method") == "workspace/configuration", since=since, timeout=30)
            expected = expected if trusts is None else trusts
            now = await trusted(server)
            seen.append((case, trusts, now))
            assert now == expected, f"case {case}: the answer means {trusts}, the server trusts: {now}; {seen}"
        assert any(t for _, t, _ in seen) and any(t is False for _, t, _ in seen) and any(t is None for _, t, _ in seen)
        assert "Traceback" not in "".join(server.stderr), "".join(server.stderr)[-3000:]
        assert await server.shutdown() == 0
    finally:
        await server.close()


async def test_an_answer_too_deep_to_parse_is_given_up_on_and_said():
    """The server's JSON reader refuses 20,000 levels, so the answer never settled the request:
    the first pull waited for good, and with it the wait of every job for the settings."""
    server = await HostileClient.start()
    try:
        server.answer = f'[{{"trusted": true, "deep": {too_deep_text(20_000)}}}]'
        await server.request(
            "initialize",
            {"processId": None, "rootUri": None, "capabilities": {"workspace": {"configuration": True}}},
        )
        await server.notify("initialized")
        said = await server.wait_for(
            lambda m: m.get("method") == "window/showMessage" and "could not be read" in m["params"]["message"],
            timeout=CONFIGURATION_WAIT_S + 20,
        )
        assert f"not answered within {CONFIGURATION_WAIT_S:g} s" in said["params"]["message"]
        assert not await trusted(server)
        assert "editor has not sent its settings" not in (await job_answer(server))["message"]
        server.answer = '[{"trusted": true}]'
        since = len(server.messages)
        await server.notify("workspace/didChangeConfiguration", {"settings": None})
        await server.wait_for(lambda m: m.get("method") == "workspace/configuration", since=since, timeout=30)
        assert await trusted(server)
    finally:
        await server.close()
