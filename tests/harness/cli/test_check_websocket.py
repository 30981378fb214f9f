"""`callproof check` on Responses WebSocket transcripts as a user runs it: --transport, detection, exit codes, the
one-line errors (docs/cli.md, docs/spec/websocket.md §7.8)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from callproof.harness.cli import main

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
    assert "fix: " in out and "docs/rules.md#rsp-ws-003" in out and "docs/spec/websocket.md §7.5" in out


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
     "is named as a WebSocket transcript but its first line is not a JSON object"),
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
