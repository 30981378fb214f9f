"""`callproof scenarios import`: every capture of examples/captures/ (all three dialects, every profile) becomes a
scenario file; the mock playing it in the capture's dialect gives the same `callproof check` verdict (the same
failed rules) as the capture itself. Bad input is one line and exit 2."""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from callproof.harness.check import check_capture
from callproof.harness.cli import main
from callproof.mock_server import MockServer, load_scenarios

CAPTURES = Path(__file__).resolve().parents[3] / "examples" / "captures"
PATHS = {"responses": "/responses", "chat": "/chat/completions", "anthropic": "/messages"}


def _captures() -> list[tuple[str, str, str, str]]:
    """(file, front, profile, kind) of every capture in the manifests."""
    rows = []
    for manifest in sorted(CAPTURES.glob("*/*/manifest.json")):
        doc = json.loads(manifest.read_text(encoding="utf-8"))
        rows += [(str(manifest.parent / c["file"]), doc["front"], doc["profile"], c["kind"]) for c in doc["captures"]]
    return rows


#: The replayable captures: an SSE stream or a JSON body (a WebSocket transcript, .jsonl, is refused in one line:
#: test_a_websocket_transcript_is_refused_in_one_line).
CAPTURED = [row for row in _captures() if not row[0].endswith(".jsonl")]
TRANSCRIPTS = [row[0] for row in _captures() if row[0].endswith(".jsonl")]


def _verdict(data: bytes, front: str, profile: str) -> set[str]:
    return set(check_capture(io.BytesIO(data), "x", front=front, profile=profile).failed_rules)  # type: ignore[arg-type]


def _replay(mock: MockServer, sid: str, front: str, stream: bool) -> bytes:
    body: dict[str, Any] = {"model": "gpt-test", "stream": stream}
    body["input" if front == "responses" else "messages"] = [{"role": "user", "content": "replay"}]
    if front == "anthropic":
        body["max_tokens"] = 64
    answer = httpx.post(mock.url + PATHS[front], json=body, headers={"x-callproof-scenario": sid}, timeout=10)
    assert answer.status_code == 200, answer.text
    return answer.content


#: Ok captures whose items have no scenario form (custom tool, MCP, shell and code interpreter calls): `--no-raw`
#: refuses them in one line (test_items_without_a_scenario_form_are_refused_structured); the raw import plays them.
NO_SCENARIO_FORM = ("items-custom-tool-call.sse", "items-mcp-call.sse", "items-shell-call.sse",
                    "items-code-interpreter.sse")


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[MockServer, dict[str, str]]]:
    folder = tmp_path_factory.mktemp("imported")
    ids: dict[str, str] = {}
    runner = _Runner()
    for n, (file, front, _, kind) in enumerate(CAPTURED):
        ids[file] = f"cap_{n:03d}"
        runner.run(folder, ids[file], file, "--front", front)
        if kind == "ok" and Path(file).name not in NO_SCENARIO_FORM:
            runner.run(folder, f"cap_{n:03d}_structured", file, "--front", front, "--no-raw")
    with MockServer(load_scenarios([folder]), strict=True) as mock:
        yield mock, ids


class _Runner:
    """Runs the command and keeps its stdout (a module fixture cannot use capsys)."""

    def run(self, folder: Path, sid: str, *argv: str) -> None:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["scenarios", "import", *argv, "--id", sid])
        assert code == 0, err.getvalue()
        (folder / f"{sid}.json").write_text(out.getvalue(), encoding="utf-8")


@pytest.mark.parametrize(("file", "front", "profile", "kind"), CAPTURED,
                         ids=[str(Path(f).relative_to(CAPTURES)) for f, *_ in CAPTURED])
def test_the_replay_gets_the_captures_verdict(imported: tuple[MockServer, dict[str, str]], file: str, front: str,
                                               profile: str, kind: str) -> None:
    mock, ids = imported
    data = Path(file).read_bytes()
    stream = not file.endswith(".json")
    expected = _verdict(data, front, profile)
    assert _verdict(_replay(mock, ids[file], front, stream), front, profile) == expected
    if kind == "ok" and profile == "openai" and Path(file).name not in NO_SCENARIO_FORM:
        # the structure alone, rendered by the mock, passes as the capture did
        assert _verdict(_replay(mock, f"{ids[file]}_structured", front, stream), front, profile) == expected == set()


@pytest.mark.parametrize("name", NO_SCENARIO_FORM)
def test_items_without_a_scenario_form_are_refused_structured(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scenarios", "import", str(CAPTURES / "responses/openai/ok" / name), "--no-raw"]) == 2
    err = capsys.readouterr().err
    assert "has no scenario form" in err and "import it with its raw frames" in err and err.count("\n") == 1


def test_every_dialect_is_covered() -> None:
    assert {front for _, front, _, _ in CAPTURED} == {"responses", "chat", "anthropic"}


def test_standard_input(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    data = (CAPTURES / "anthropic/openai/ok/text-only.sse").read_bytes()
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert main(["scenarios", "import", "-"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["feature"] == "imported_capture" and document["scenarios"][0]["id"] == "imported_capture"
    assert document["scenarios"][0]["output"][0]["type"] == "text"


@pytest.mark.parametrize(("data", "message"), [
    (b"", "is empty"), (b"<html>502 Bad Gateway</html>", "neither an SSE stream"), (b"{oops", "not valid JSON")])
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str], data: bytes,
                                          message: str) -> None:
    path = tmp_path / "capture.txt"
    path.write_bytes(data)
    assert main(["scenarios", "import", str(path)]) == 2
    out = capsys.readouterr()
    assert out.out == "" and message in out.err and out.err.count("\n") == 1
    assert out.err.startswith("callproof scenarios import: ")


def test_a_bad_id_and_a_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scenarios", "import", str(tmp_path / "nope.sse")]) == 2
    assert "cannot read" in capsys.readouterr().err
    assert main(["scenarios", "import", str(CAPTURES / "chat/openai/ok/text-only.sse"), "--id", "Bad-Id"]) == 2
    assert "not a scenario id" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["anything.json", "capture-2024-05-01.json", "imported_text_only.json"])
def test_the_output_loads_under_any_file_name(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    assert main(["scenarios", "import", str(CAPTURES / "chat/openai/ok/text-only.sse")]) == 0
    out = capsys.readouterr()
    assert "save it as any *.json" in out.err
    (tmp_path / name).write_text(out.out, encoding="utf-8")
    assert list(load_scenarios([tmp_path])) == ["imported_text_only"]
    assert list(load_scenarios([tmp_path / name])) == ["imported_text_only"]
    assert main(["scenarios", "--no-bundled", "--scenarios", str(tmp_path / name)]) == 0
    assert capsys.readouterr().out.startswith("imported_text_only ")


@pytest.mark.parametrize("file", TRANSCRIPTS[:1])
def test_a_websocket_transcript_is_refused_in_one_line(file: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert TRANSCRIPTS, "the captures include WebSocket transcripts"
    assert main(["scenarios", "import", file, "--id", "ws"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is a Responses WebSocket transcript (JSON lines)" in err
    assert "`callproof check`" in err
