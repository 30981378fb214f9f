"""`callproof check` and `callproof rules` as a user runs them: exit codes, messages, garbage input."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest

from callproof.harness import CATALOGUE
from callproof.harness.cli import main
from callproof.harness.scenario import bundled_scenarios

ROOT = Path(__file__).resolve().parents[3]
CAPTURES = ROOT / "examples" / "captures"
OK = sorted((CAPTURES / "responses" / "openai" / "ok").glob("*.sse"))
BROKEN_ARGS = sorted((CAPTURES / "responses" / "openai" / "broken").glob("RSP-ARGS-001--*.sse"))


def test_check_passes_a_correct_capture(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(OK[0])]) == 0
    out = capsys.readouterr().out
    assert "front responses, profile openai, sse" in out
    assert "conformant: 0 MUST and 0 SHOULD rules failed" in out


def test_check_fails_a_broken_capture_with_evidence_and_fix(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(BROKEN_ARGS[0])]) == 1
    out = capsys.readouterr().out
    assert "FAIL RSP-ARGS-001 [MUST]" in out
    assert "event #" in out and "$.arguments" in out
    assert "fix: " in out and "(more: `callproof rules RSP-ARGS-001`)" in out and "docs/" not in out
    assert "NOT conformant: 1 MUST" in out


def test_check_json_output_is_machine_readable(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--format", "json", str(OK[0]), str(BROKEN_ARGS[0])]) == 1
    doc = json.loads(capsys.readouterr().out)
    first, second = doc["checks"]
    assert first["conformant"] is True and first["summary"]["failed"] == 0
    assert second["conformant"] is False
    failed = [r for r in second["results"] if r["outcome"] == "failed"]
    assert [r["rule"] for r in failed] == ["RSP-ARGS-001"]
    assert failed[0]["violations"][0]["evidence"]["path"] == "$.arguments"


def test_check_reads_stdin() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "callproof.harness.cli", "check", "-"],
        input=BROKEN_ARGS[0].read_bytes(), capture_output=True, check=False,
    )
    assert proc.returncode == 1
    assert b"<stdin>: front responses" in proc.stdout


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "is empty (0 bytes)"),
        (b"\x7fELF\x02\x01\x01\x00\x00\x00binary", "looks binary (NUL byte at offset 7)"),
    ],
    ids=["empty", "binary"],
)
def test_check_refuses_input_it_cannot_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, message: str
) -> None:
    path = tmp_path / "capture.sse"
    path.write_bytes(content)
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("callproof check: ") and message in err
    assert "Traceback" not in err


def test_check_missing_file_is_a_usage_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["check", str(tmp_path / "nope.sse")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_check_checks_every_readable_file_and_reports_the_unreadable_ones(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    missing = str(tmp_path / "missing.sse")
    assert main(["check", str(OK[0]), missing, str(BROKEN_ARGS[0])]) == 2
    out, err = capsys.readouterr()
    assert err == f"callproof check: cannot read {missing}: No such file or directory\n"
    assert out.count("front responses, profile openai") == 2 and "FAIL RSP-ARGS-001 [MUST]" in out
    assert main(["check", "--format", "json", str(OK[0]), missing, str(BROKEN_ARGS[0])]) == 2
    out, err = capsys.readouterr()
    first, second, third = json.loads(out)["checks"]
    assert first["conformant"] is True and third["conformant"] is False
    assert second == {"file": missing, "error": f"cannot read {missing}: No such file or directory"}
    assert err == f"callproof check: cannot read {missing}: No such file or directory\n"


def test_check_truncated_json_body_fails_the_schema_rule(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    body = next((CAPTURES / "responses" / "openai" / "ok").glob("*.json")).read_bytes()
    path = tmp_path / "body.json"
    path.write_bytes(body[: len(body) // 2])
    assert main(["check", str(path)]) == 1
    out = capsys.readouterr().out
    assert "FAIL RSP-SCHEMA-003" in out and "not valid JSON" in out


def test_check_garbage_text_reports_framing_failures(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "garbage.sse"
    path.write_bytes(b"<html><body>502 Bad Gateway</body></html>\n")
    assert main(["check", "--front", "responses", str(path)]) == 1
    out = capsys.readouterr().out
    assert "FAIL SSE-002" in out  # the block never ends with a blank line
    assert "FAIL RSP-LIFE-002" in out


def test_check_large_garbage_stream_has_bounded_memory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """50 MB of data lines with no blank line: one oversize block, discarded, memory far below its size."""
    path = tmp_path / "big.sse"
    line = b"data: " + b"x" * 1017 + b"\n"
    with path.open("wb") as fh:
        for _ in range(50 * 1024):
            fh.write(line)
    tracemalloc.start()
    try:
        code = main(["check", "--front", "responses", str(path)])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert code == 1
    out = capsys.readouterr().out
    assert "SSE-006" in out and "RSP-LIFE-002" in out
    assert peak < 48 * 1024 * 1024, f"peak {peak / 1e6:.1f} MB while checking a 50 MB stream"


def test_usage_error_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["check", "--profile", "strictest", "x.sse"])
    assert exc.value.code == 2
    assert "invalid choice: 'strictest'" in capsys.readouterr().err


@pytest.mark.parametrize(("flag", "value"), [("--front", "grpc"), ("--upstream-dialect", "gemini")])
def test_an_unknown_dialect_is_one_line(flag: str, value: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["run", "--launch", "gw {upstream} {port}", flag, value])
    assert exc.value.code == 2
    assert capsys.readouterr().err == (
        f"callproof: error: argument {flag}: invalid choice: '{value}' (choose from 'responses', 'chat', "
        "'anthropic') (see `callproof run --help`)\n")


def test_rules_text_lists_every_rule(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["ID", "LEVEL", "FAMILY", "PROFILES", "STATEMENT"]
    assert [line.split()[0] for line in out[1:]] == [r.id for r in CATALOGUE]


def test_rules_without_a_profile_say_where_each_applies(capsys: pytest.CaptureFixture[str]) -> None:
    """RSP-FRAME-001 (no [DONE]) and RSP-FRAME-002 ([DONE] required) contradict each other: the column says why."""
    assert main(["rules"]) == 0
    rows = {line.split()[0]: line.split()[3] for line in capsys.readouterr().out.splitlines()[1:]}
    assert rows["RSP-FRAME-001"] == "openai" and rows["RSP-FRAME-002"] == "open-responses"
    assert rows["SSE-001"] == "all"
    assert all(rows[r.id] == "all" or set(rows[r.id].split(",")) == r.profiles for r in CATALOGUE)


def test_rules_of_one_profile_keep_their_columns(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "--profile", "openai"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split()[:3] == ["SSE-001", "MUST", "framing"] and "PROFILES" not in out[0]
    assert out[0].split()[3:5] == ["Event", "data"]
    assert [line.split()[0] for line in out] == [r.id for r in CATALOGUE if "openai" in r.profiles]


def test_rules_json_filters_by_front_and_profile(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "--format", "json", "--front", "chat", "--profile", "lenient"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows and all("chat" in r["fronts"] and "lenient" in r["profiles"] for r in rows)
    assert {"id", "level", "family", "statement", "spec", "fix"} <= rows[0].keys()


def test_console_script_is_installed() -> None:
    exe = Path(sys.executable).with_name("callproof")
    proc = subprocess.run([str(exe), "--version"], capture_output=True, text=True, check=False)
    assert proc.returncode == 0 and proc.stdout.startswith("callproof ")


def test_scenarios_show_the_tags_their_help_promises(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scenarios"]) == 0
    lines = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()}
    for scenario in bundled_scenarios().values():
        line = lines[scenario.id]
        assert line.endswith(f" [{', '.join(scenario.tags)}]" if scenario.tags else scenario.description), line
    with pytest.raises(SystemExit):
        main(["scenarios", "--help"])
    assert "[tags]" in " ".join(capsys.readouterr().out.split())


def test_scenarios_lists_the_bundled_corpus(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scenarios"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any(line.split()[:2] == ["one_call", "basic"] for line in lines)
    assert main(["scenarios", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == len(lines)
    fragmented = next(r for r in rows if r["id"] == "fragmented_name")
    assert fragmented["breaks"] == {"chat": ["CHAT-TC-003"]} and "fragmented-name" in fragmented["tags"]


def test_scenarios_reports_a_bad_user_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "mine.json"
    bad.write_text('{"feature": "mine", "description": "x", "scenarios": []', encoding="utf-8")
    assert main(["scenarios", "--scenarios", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"callproof scenarios: {bad}: not valid JSON") and "Traceback" not in err


def _mine(tmp_path: Path, sid: str) -> Path:
    path = tmp_path / "mine.json"
    path.write_text(json.dumps({"feature": "mine", "description": "mine", "scenarios": [
        {"id": sid, "description": "says hi", "output": [{"type": "text", "text": "hi"}],
         "request": {"input": [{"role": "user", "text": "hi"}]}, "expect": {"status": "completed"}}]}))
    return path


def test_scenarios_adds_user_files_to_the_bundled_corpus_unless_no_bundled(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _mine(tmp_path, "mine_hello")
    assert main(["scenarios", "--scenarios", str(path), "--format", "json"]) == 0
    ids = {r["id"] for r in json.loads(capsys.readouterr().out)}
    assert {"mine_hello", "one_call"} <= ids
    assert main(["scenarios", "--scenarios", str(path), "--no-bundled", "--format", "json"]) == 0
    assert [r["id"] for r in json.loads(capsys.readouterr().out)] == ["mine_hello"]


def test_scenarios_refuses_user_ids_that_clash_with_bundled_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["scenarios", "--scenarios", str(_mine(tmp_path, "one_call"))]) == 2
    assert "redefine bundled scenario ids ['one_call']" in capsys.readouterr().err
    assert main(["scenarios", "--scenarios", str(_mine(tmp_path, "one_call")), "--no-bundled"]) == 0


#: Prints the modules a fresh interpreter holds after `callproof ARGS...` (its output and exit swallowed).
_MODULES_AFTER = """
import contextlib, io, json, sys
from callproof.harness.cli import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    with contextlib.suppress(SystemExit):
        main(sys.argv[1:])
print(json.dumps(sorted(sys.modules)))
"""
#: What the commands that read files or print tables never need: the web stack, the runner, the mock, the test and
#: fuzzing frameworks.
_HEAVY = ("httpx", "uvicorn", "starlette", "anyio", "pytest", "_pytest", "hypothesis", "callproof.mock_server",
          "callproof.harness.run", "callproof.harness.plugin", "callproof.harness.fuzz")


@pytest.mark.parametrize("argv", [
    ["--version"], ["--help"], ["check", "--help"], ["check", str(OK[0])], ["rules"], ["rules", "--help"],
    ["scenarios"], ["scenarios", "--help"], ["rules", "GW-ARGS-001"], ["docs"], ["docs", "contracts#7.8"],
], ids=" ".join)
def test_the_light_commands_import_no_runner_mock_or_web_stack(argv: list[str]) -> None:
    done = subprocess.run([sys.executable, "-c", _MODULES_AFTER, *argv], capture_output=True, text=True, check=True,
                          timeout=120)
    loaded = json.loads(done.stdout)
    heavy = [m for m in loaded if m.split(".")[0] in _HEAVY or any(m.startswith(h + ".") or m == h for h in _HEAVY)]
    assert heavy == [], f"callproof {' '.join(argv)} imported {heavy}"
    if argv[0].startswith("--"):  # no subcommand module at all
        assert not [m for m in loaded if m.startswith("callproof.harness.cli._") and m.endswith("_command")]


@pytest.mark.parametrize("command", ["check", "mock", "scenarios", "run", "fuzz", "report", "diff", "rules", "docs",
                                     "record"])
def test_a_subcommand_defined_on_demand_has_the_help_of_the_whole_parser(
    command: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "120")
    from callproof.harness.cli import _parser

    with pytest.raises(SystemExit):
        main([command, "--help"])
    sub = next(a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert capsys.readouterr().out == sub.choices[command].format_help()
