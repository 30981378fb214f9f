"""`callproof check` on Responses WebSocket transcripts as a user runs it: --transport, detection, exit codes, the
one-line errors (docs/cli.md, docs/spec/websocket.md §7.8)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from websockets.sync.client import connect

from callproof.harness.check import check_bytes, check_websocket_transcript
from callproof.harness.cli import main
from callproof.mock_server import MockServer, bundled_scenarios

ROOT = Path(__file__).resolve().parents[3]
SET = ROOT / "examples" / "captures" / "responses" / "openai"
LOOP = SET / "ok" / "websocket-tool-loop.jsonl"
DROPPED = SET / "broken" / "RSP-WS-003--continuation-dropped.jsonl"


def test_a_transcript_is_detected_and_passes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(LOOP)]) == 0
    out = capsys.readouterr().out
    assert "front responses, profile openai, websocket, 35 events" in out
    assert "conformant: 0 MUST and 0 SHOULD rules failed" in out


def test_a_broken_transcript_names_the_line_field_rule_and_fix(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(DROPPED)]) == 1
    out = capsys.readouterr().out
    assert "FAIL RSP-WS-003 [MUST]" in out
    assert "event #18 'response.created'" in out and "$.response.previous_response_id: line 21:" in out
    assert "fix: " in out and "`callproof rules RSP-WS-003`" in out and "`callproof docs websocket#7.5`" in out


def test_json_output_says_the_input_was_a_websocket_transcript(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--format", "json", str(LOOP), str(DROPPED)]) == 1
    first, second = json.loads(capsys.readouterr().out)["checks"]
    assert first["input"] == second["input"] == "websocket"
    assert not any(r["rule"].startswith(("SSE-", "RSP-FRAME-")) for r in first["results"])
    assert [r["rule"] for r in second["results"] if r["outcome"] == "failed"] == ["RSP-WS-003"]


def test_stdin_is_detected_by_content() -> None:
    proc = subprocess.run([sys.executable, "-m", "callproof.harness.cli", "check", "-"],
                          input=DROPPED.read_bytes(), capture_output=True, check=False)
    assert proc.returncode == 1
    assert b"<stdin>: front responses, profile openai, websocket" in proc.stdout


def test_transport_websocket_reads_any_file_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lone = tmp_path / "refused.json"
    lone.write_text(json.dumps({"type": "error", "status": 400, "error": {
        "type": "invalid_request_error", "code": "previous_response_not_found", "message": "m", "param": None}}))
    assert main(["check", "--transport", "websocket", str(lone)]) == 0
    assert ", websocket, 1 events" in capsys.readouterr().out


@pytest.mark.parametrize(("name", "content", "flags", "says"), [
    ("capture.jsonl", b"event: response.created\ndata: {}\n\n", [],
     "is named as a WebSocket transcript but does not start with a JSON object"),
    ("capture.sse", b"event: response.created\ndata: {}\n\n", ["--transport", "websocket"],
     "is not a WebSocket transcript: it starts with 'e'"),
    ("capture.jsonl", b'{"type": "response.created"}\n', ["--front", "anthropic"],
     "--front anthropic has no WebSocket transport"),
], ids=["sse-named-jsonl", "sse-as-websocket", "front-anthropic"])
def test_an_input_that_is_not_a_transcript_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, content: bytes, flags: list[str], says: str,
) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    assert main(["check", *flags, str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("callproof check: ") and says in err and err.count("\n") == 1
    assert "Traceback" not in err


def test_garbage_lines_are_rule_failures_not_tracebacks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "garbage.jsonl"
    path.write_bytes(LOOP.read_bytes()[:5000] + b"\n\xff\xfe not json\n" + b'"a string"\n')
    assert main(["check", str(path)]) == 1
    out = capsys.readouterr().out
    assert "FAIL RSP-WS-004" in out and "Traceback" not in out


# -- the mock's WebSocket mode, checked -----------------------------------------------------------------------------
#: Features left out: raw bytes of one dialect, sequences (legs need the client's tool results), scripted delays
#: (timing: slow, and nothing the verdict reads).
_LEFT_OUT = frozenset(("raw", "sequences", "timing"))


def _ws_and_sse_verdicts() -> list[tuple[str, tuple[str, ...], tuple[str, ...], str]]:
    """Every fault-free scenario played on one socket of a real mock (each turn continuing the previous one), and over
    HTTP: (scenario, the failed rules of its WebSocket turn, of its SSE stream, of the whole transcript)."""
    scenarios = [s.id for s in bundled_scenarios().values() if not s.faults and s.feature not in _LEFT_OUT]
    terminal = {"response.completed", "response.failed", "response.incomplete", "error"}
    out = []
    with MockServer(port=0) as mock:
        previous = None
        with connect(mock.url.replace("http", "ws", 1) + "/responses", max_size=None) as socket:
            for scenario in scenarios:
                create: dict[str, object] = {"type": "response.create", "model": f"callproof/{scenario}", "input": "hi"}
                if previous is not None:
                    create["previous_response_id"] = previous
                socket.send(json.dumps(create))
                while (message := json.loads(socket.recv(timeout=30)))["type"] not in terminal:
                    pass
                response = message.get("response")
                previous = response["id"] if isinstance(response, dict) else previous
        turns = mock.journal.requests()
        transcript = b"".join(json.dumps(t.body).encode() + b"\n" + mock.journal.body_of(t.id) for t in turns)
        whole = check_websocket_transcript(transcript).failed_rules
        with httpx.Client(base_url=mock.url, timeout=30) as http:
            for scenario, turn in zip(scenarios, turns, strict=True):
                assert turn.scenario == scenario
                sse = http.post("/responses", json={"model": f"callproof/{scenario}", "input": "hi", "stream": True})
                out.append((scenario, check_websocket_transcript(mock.journal.body_of(turn.id)).failed_rules,
                            check_bytes(sse.content).failed_rules, ",".join(whole)))
    return out


def test_the_mock_over_a_socket_gets_the_verdicts_of_its_sse_streams() -> None:
    """docs/spec/websocket.md §7.9: a turn is judged by the RSP rules of a streamed capture minus SSE framing. The
    mock sends the same events over both transports, so each scenario's WebSocket turn fails exactly the rules its
    SSE stream fails (the upstream defects some scenarios script on purpose), and a transcript of every turn,
    chained by previous_response_id, fails no RSP-WS rule."""
    verdicts = _ws_and_sse_verdicts()
    assert len(verdicts) >= 60
    differ = [(s, ws, sse) for s, ws, sse, _ in verdicts if ws != sse]
    assert differ == []
    assert any(ws for _, ws, _, _ in verdicts), "some scenarios script defects the rules catch"
    whole = verdicts[0][3].split(",") if verdicts[0][3] else []
    assert not [rule for rule in whole if rule.startswith("RSP-WS-")]
