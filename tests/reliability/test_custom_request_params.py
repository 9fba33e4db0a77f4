"""The server's own requests and commands with params of the wrong type or shape, or missing:
each is answered -32602 (invalid params) with a message naming the field (issue 25, low). The
old server answered -32603 (its handler's ValueError or TypeError), null, or cancelled every
job (`cancelJob` with three numbers).

Raw JSON-RPC to the real server (`raw_client.py`): pytest-lsp's client types the params.
"""

from raw_client import raw_server

URI = "file:///tmp/allo-lsp-tests/design.py"
GRAPH = "allo/regionGraph"
DEEP, DEEP_OBJECT = [], {}  # 600 levels: deeper than any request of ours, within the frames' JSON
for _ in range(600):
    DEEP, DEEP_OBJECT = [DEEP], {"a": DEEP_OBJECT}
# (method or command, params or arguments, what the message names)
CASES = [
    (GRAPH, {}, "textDocument is missing"),
    (GRAPH, [URI], "params must be an object"),
    (GRAPH, {"textDocument": 5}, "textDocument must be an object"),
    (GRAPH, {"textDocument": {}}, "textDocument.uri is missing"),
    (GRAPH, {"textDocument": {"uri": 5}}, "textDocument.uri must be a string"),
    (GRAPH, {"textDocument": {"uri": URI}, "region": 5}, "region must be a string"),
    (GRAPH, {"textDocument": {"uri": URI}, "region": ["top"]}, "region must be a string"),
    (GRAPH, {"textDocument": {"uri": URI}, "expand": "yes"}, "expand must be true or false"),
    (GRAPH, {"textDocument": {"uri": URI}, "region": DEEP}, "region must be a string"),
    (GRAPH, {"textDocument": DEEP_OBJECT}, "textDocument.uri is missing"),
]
ACTIVE, ACTIVE_OK = "alloDataflow/activePe", {"textDocument": {"uri": URI}, "region": "top", "kernel": "k"}
CASES += [
    (ACTIVE, {"textDocument": {"uri": URI}, "region": "top"}, "kernel is missing"),
    (ACTIVE, {**ACTIVE_OK, "region": None}, "region must be a string"),
    (ACTIVE, {**ACTIVE_OK, "pe": {"name": "k_0"}}, "pe must be a PE's name or pid"),
    (ACTIVE, {**ACTIVE_OK, "pe": [1, "2"]}, "pe must be a PE's name or pid"),
    (ACTIVE, {**ACTIVE_OK, "pe": [True]}, "pe must be a PE's name or pid"),
    (ACTIVE, {**ACTIVE_OK, "clear": "yes"}, "clear must be true or false"),
]
for command in ("simulate", "run", "showMlir", "synthesize", "showReport", "showSynthesisFiles"):
    name = f"alloDataflow.{command}"
    # A job takes the client's progress token too (issue 26, item 6): (uri, name[, options]).
    counts, listed = (
        ("2 arguments", "uri, name")
        if command in ("showReport", "showSynthesisFiles")
        else ("2 or 3 arguments", "uri, name, options")
    )
    CASES += [
        (name, None, f"{name} takes {counts} ({listed}), not 0"),
        (name, [URI], f"takes {counts}"),
        (
            name,
            [URI, "top", "more", 4] if command not in ("showReport", "showSynthesisFiles") else [URI, "top", "more"],
            f"takes {counts}",
        ),
        (name, [5, "top"], "argument 1 (uri) must be a string, not 5"),
        (name, [URI, 5], "argument 2 (name) must be a string, not 5"),
        (name, [URI, None], "argument 2 (name) must be a string, not None"),
        (name, [URI, {"name": "top"}], "argument 2 (name) must be a string"),
    ]
CANCEL, SWEEP = "alloDataflow.cancelJob", "alloDataflow.sweep"
CASES += [
    (CANCEL, [1, 2, 3], "argument 1 (uri) must be a string"),
    (CANCEL, [URI, "top", 3], "argument 3 (kind) must be a string"),
    (CANCEL, [URI], "takes 0 or 3 arguments"),
    (SWEEP, [URI], "takes 2 or 3 or 4 arguments"),
    ("alloDataflow.synthesize", [URI, "top", {"progress": True}], "argument 3 (options).progress must be a string"),
    (SWEEP, [URI, 7], "argument 2 (name) must be a string"),
    (SWEEP, [URI, "top", "M=4,8"], "argument 3 (sets) must be a list of strings"),
    (SWEEP, [URI, "top", [4, 8]], "argument 3 (sets) must be a list of strings"),
    (SWEEP, [URI, "top", ["M=4"], 5], "argument 4 (options) must be an object"),
    (SWEEP, [URI, "top", ["M=4"], {"progress": True}], "argument 4 (options).progress must be a string or an integer"),
]


async def test_ill_typed_params_of_each_custom_request_are_invalid_params():
    async with raw_server({"trusted": True}) as server:
        wrong = []
        for method, params, needle in CASES:
            if method in (GRAPH, ACTIVE):  # requests; the others are commands
                answer = await server.request(method, params, timeout=10)
            else:
                request = {"command": method} if params is None else {"command": method, "arguments": params}
                answer = await server.request("workspace/executeCommand", request, timeout=10)
            error = answer.get("error") or {}
            if error.get("code") != -32602 or needle not in error.get("message", ""):
                wrong.append((method, params, answer.get("error", answer.get("result"))))
        assert wrong == []
        # Well-typed params still reach the handlers: no document, so no graph and no report.
        assert (await server.request(GRAPH, {"textDocument": {"uri": URI}, "region": None}))["result"] is None
        assert (await server.request(ACTIVE, {**ACTIVE_OK, "pe": [0], "clear": None}))["result"] is None
        cancelled = await server.request("workspace/executeCommand", {"command": CANCEL, "arguments": []})
        assert cancelled["result"] is False
