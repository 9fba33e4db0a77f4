"""`allo-lsp check` and `allo-lsp rules` as a terminal or CI runs them: a real subprocess."""

import json
import subprocess
import sys

from paths import EXAMPLES
from waiting import until_sync

CLEAN = EXAMPLES / "producer_consumer.py"
ORDER = EXAMPLES / "pitfall_arg_order.py"
SCALAR = EXAMPLES / "pitfall_bare_scalar.py"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "allo_lsp", *args], capture_output=True, text=True, timeout=60)


def test_clean_file_exits_0_and_prints_the_signature():
    out = run("check", str(CLEAN))
    assert out.returncode == 0, out.stderr
    assert "region top(A, n, B), 2 PEs" in out.stdout
    assert "#3 B: int32[8, 8]  memref<8x8xi32>  m_axi gmem2  out" in out.stdout


def test_json_schema_and_exit_1_on_diagnostics():
    out = run("check", str(SCALAR), str(CLEAN), "--format", "json")
    assert out.returncode == 1
    files = json.loads(out.stdout)["files"]
    assert [f["path"] for f in files] == [str(SCALAR), str(CLEAN)]
    diag = files[0]["diagnostics"][0]
    assert set(diag) == {"code", "severity", "line", "column", "end_line", "end_column", "message"}
    assert (diag["code"], diag["severity"]) == ("ADF002", "error")
    region = files[1]["regions"][0]
    assert {"name", "line", "pe_count", "top_signature", "legacy_order", "kernels"} <= set(region)
    assert region["top_signature"][0] == {
        "position": 1,
        "name": "A",
        "type": "int32[8, 8]",
        "annotation": "int32[M, N]",
        "mlir_type": "memref<8x8xi32>",
        "interface": "m_axi",
        "bundle": "gmem0",
        "direction": "in",
        "kernels": ["producer"],
    }
    assert region["kernels"][0]["mapping"] == [1] and region["kernels"][0]["args"] == ["A", "n"]


def test_allo_build_setting_changes_the_hazard_severity():
    def severities(build):
        out = run("check", str(ORDER), "--format", "json", "--allo-build", build)
        found = json.loads(out.stdout)["files"][0]["diagnostics"]
        return [(d["code"], d["severity"]) for d in found if d["code"] != "ADF005"]

    # ADF005 is information whatever the build: the file builds for the simulator only.
    assert severities("auto") == [("ADF003", "warning")]
    assert severities("legacy")[0] == ("ADF003", "error")
    assert severities("fixed") == [("ADF003", "information")]


def test_legacy_build_checks_calls_against_the_older_order(tmp_path):
    source = ORDER.read_text().replace("mod(inp, out, n_arr)", "mod(arr_in, arr_out, n)")
    assert source != ORDER.read_text()
    path = tmp_path / "call.py"
    path.write_text(source)

    def codes(build):
        out = run("check", str(path), "--format", "json", "--allo-build", build)
        found = json.loads(out.stdout)["files"][0]["diagnostics"]
        return [d["code"] for d in found if d["code"] != "ADF005"]  # ADF005: information, any build

    # Written for the fixed order: correct there, swapped on an older build (top(arr_in, n, arr_out)).
    assert codes("fixed") == ["ADF003"]
    assert codes("legacy") == ["ADF003", "ADF061", "ADF061"]


def test_directories_are_walked():
    out = run("check", str(EXAMPLES), "--format", "json")
    paths = {f["path"] for f in json.loads(out.stdout)["files"]}
    assert {str(CLEAN), str(ORDER)} <= paths


def test_a_file_named_twice_is_checked_once():
    """`check DIR FILE-IN-DIR` (or a directory and one of its subdirectories): each file once, as
    first named, so that no diagnostic is printed twice."""
    out = run("check", str(EXAMPLES), str(ORDER), f"{EXAMPLES}/../examples", "--format", "json")
    paths = [f["path"] for f in json.loads(out.stdout)["files"]]
    assert len(paths) == len(set(paths)) and str(ORDER) in paths
    assert paths == [f["path"] for f in json.loads(run("check", str(EXAMPLES), "--format", "json").stdout)["files"]]


def test_sarif_output():
    out = run("check", str(SCALAR), "--format", "sarif")
    sarif = json.loads(out.stdout)
    assert sarif["version"] == "2.1.0"
    run0 = sarif["runs"][0]
    result = run0["results"][0]
    assert result["ruleId"] == "ADF002" and result["level"] == "error"
    region = result["locations"][0]["physicalLocation"]["region"]
    assert region["startLine"] == 24 and region["startColumn"] == 38
    rule = run0["tool"]["driver"]["rules"][result["ruleIndex"]]
    assert rule["id"] == "ADF002" and "## What it does" in rule["help"]["markdown"]


def test_github_annotations():
    out = run("check", str(SCALAR), "--format", "github")
    first = out.stdout.splitlines()[0]
    assert first.startswith(f"::error file={SCALAR},line=24,col=38,")
    assert "title=ADF002::Scalar 'n' cannot appear in `args=[...]`" in first


def test_usage_errors_exit_2_with_a_message(tmp_path):
    missing = run("check", str(tmp_path / "nope.py"))
    assert missing.returncode == 2 and "no such file or directory" in missing.stderr
    binary = tmp_path / "latin1.py"
    binary.write_bytes(b"x = '\xe9'\n")
    bad = run("check", str(binary))
    assert bad.returncode == 2 and "not UTF-8" in bad.stderr
    assert run("check").returncode == 2  # argparse: PATH is required


def test_rules_command_lists_and_explains():
    listing = run("rules")
    assert listing.returncode == 0 and "ADF001  error" in listing.stdout
    one = run("rules", "adf022")
    assert one.returncode == 0 and one.stdout.startswith("# ADF022 unbalanced-stream")
    assert run("rules", "ADF999").returncode == 2


def test_serve_over_tcp_answers_initialize():
    import socket
    import time

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "allo_lsp", "serve", "--tcp", f"127.0.0.1:{port}"])
    try:
        # Nothing tells when the server listens: connecting is tried until the deadline.
        conn = until_sync(
            lambda: socket.create_connection(("127.0.0.1", port), timeout=5),
            what=f"the server listening on port {port}",
            seen=server.poll,
            timeout=20,
        )
        with conn:
            body = json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "initialize",
                    "params": {"processId": None, "rootUri": None, "capabilities": {}},
                }
            ).encode()
            conn.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            reply = b""
            # Each read waits 5 s at most (the socket's timeout); a server trickling bytes
            # without the result is stopped by the deadline.
            deadline = time.monotonic() + 20
            while b'"serverInfo"' not in reply:
                assert time.monotonic() < deadline, f"waited 20 s for the initialize result; got {reply[:300]!r}"
                chunk = conn.recv(65536)
                assert chunk, "connection closed before the initialize result"
                reply += chunk
        assert b'"name": "allo-lsp"' in reply and b'"hoverProvider": true' in reply
    finally:
        server.kill()
        server.wait(10)


def test_serve_rejects_a_malformed_tcp_address():
    out = run("serve", "--tcp", "2087")
    assert out.returncode == 2 and "HOST:PORT" in out.stderr


def test_a_reader_that_stops_early_gets_no_traceback(tmp_path):
    # `allo-lsp check DIR | head -1`: the pipe closes after one line, with far more than a pipe's
    # buffer (64 KiB) still to write.
    for i in range(150):
        (tmp_path / f"order_{i}.py").write_text(ORDER.read_text())
    process = subprocess.Popen(
        [sys.executable, "-m", "allo_lsp", "check", str(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    process.stdout.readline()
    process.stdout.close()
    stderr = process.stderr.read().decode()
    assert process.wait(timeout=120) == 128 + 13  # as a process ended by SIGPIPE
    assert "Traceback" not in stderr and "BrokenPipeError" not in stderr
