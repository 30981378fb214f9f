"""Client adapters: the protocol check, and a command adapter that crashes, hangs or prints garbage never raises."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from callproof.harness.judge import protocol_problem
from callproof.harness.run import CommandClient, InProcessClient
from callproof.harness.run._iut import IUTError

REQUEST = {"model": "m", "input": [], "stream": True}
OK = {"text": "hi", "tool_calls": [{"call_id": "c", "name": "f", "arguments": "{}"}], "error": None,
      "incomplete": False}


def _adapter(tmp_path: Path, body: str) -> CommandClient:
    script = tmp_path / "adapter.py"
    script.write_text(body, encoding="utf-8")
    return CommandClient(f"{sys.executable} {script}", "responses")


@pytest.mark.parametrize(("value", "problem"), [
    (OK, None),
    ({"tool_calls": [{"name": "f", "arguments": {"a": 1}}]}, None),
    ([], "the result is a JSON list, not an object"),
    ({"tool_calls": {}}, "`tool_calls` is not a list"),
    ({"tool_calls": [{"arguments": "{}"}]}, "`tool_calls[0].name` is missing or not a string"),
    ({"tool_calls": [{"name": "f"}]}, "`tool_calls[0].arguments` is missing"),
    ({"tool_calls": [{"name": "f", "arguments": "{}", "call_id": 3}]}, "`tool_calls[0].call_id` is not a string"),
    ({"error": 1}, "`error` is neither null nor a string"),
    ({"incomplete": "no"}, "`incomplete` is not a boolean"),
    ({"text": 3}, "`text` is neither null nor a string"),
    # a custom tool call (docs/spec/contracts.md §5): its raw `input`, no `arguments`; refusal and reasoning
    ({"tool_calls": [{"type": "custom", "call_id": "c", "name": "apply_patch", "input": "*** Begin Patch\n"}],
      "refusal": "I can't help with that.", "reasoning": None}, None),
    ({"tool_calls": [{"type": "custom", "name": "apply_patch", "arguments": "{}"}]},
     "`tool_calls[0].input` is missing or not a string: a custom call's input is the raw text the model wrote, "
     "as a string"),
    ({"tool_calls": [{"type": "custom", "name": "apply_patch", "input": {"input": "x"}}]},
     "`tool_calls[0].input` is missing or not a string: a custom call's input is the raw text the model wrote, "
     "as a string"),
    ({"tool_calls": [{"type": "function", "name": "f", "arguments": "{}"}]}, None),
    ({"tool_calls": [{"type": "custom_tool_call", "name": "f", "input": ""}]},
     "`tool_calls[0].type` is 'custom_tool_call'; use \"custom\" for a custom tool call, or leave it out for a "
     "function call"),
    ({"refusal": ["no"]}, "`refusal` is neither null nor a string"),
    ({"reasoning": 1}, "`reasoning` is neither null nor a string"),
])
def test_protocol_problem(value: object, problem: str | None) -> None:
    assert protocol_problem(value) == problem


def test_command_adapter_gets_the_request_and_the_environment(tmp_path: Path) -> None:
    adapter = _adapter(tmp_path, """
import json, os, sys
request = json.load(sys.stdin)
print(json.dumps({"text": os.environ["CALLPROOF_BASE_URL"] + "|" + os.environ["OPENAI_BASE_URL"] + "|"
                  + os.environ["OPENAI_API_KEY"] + "|" + os.environ["CALLPROOF_MAX_RETRIES"] + "|" + request["model"],
                  "tool_calls": [], "error": None, "incomplete": False}))
""")
    run = adapter.run(REQUEST, "http://127.0.0.1:1/v1", timeout=30)
    assert run.problem is None and run.result is not None
    assert run.result["text"] == "http://127.0.0.1:1/v1|http://127.0.0.1:1/v1|callproof|0|m"


@pytest.mark.parametrize(("body", "problem"), [
    ("import sys\nprint('partial', file=sys.stderr)\nraise SystemExit(3)\n", "the adapter exited with status 3"),
    ("raise RuntimeError('adapter bug')\n", "the adapter exited with status 1"),
    ("print('not json')\n", "stdout is not one JSON object: 'not json'"),
    ("print('{}')\nprint('{}')\n", "stdout is not one JSON object"),
    ("print('[1]')\n", "the result is a JSON list, not an object"),
])
def test_command_adapter_failures_are_reported_not_raised(tmp_path: Path, body: str, problem: str) -> None:
    run = _adapter(tmp_path, body).run(REQUEST, "http://x/v1", timeout=30)
    assert run.result is None and run.problem is not None and run.problem.startswith(problem)
    if "adapter bug" in body:
        assert "RuntimeError: adapter bug" in run.stderr


def test_command_adapter_that_hangs_is_killed_at_the_timeout(tmp_path: Path) -> None:
    run = _adapter(tmp_path, "import time\ntime.sleep(60)\n").run(REQUEST, "http://x/v1", timeout=0.5)
    assert run.timed_out and run.problem == "the adapter did not finish within the case timeout of 0.5 s"
    assert run.seconds < 10


def test_command_that_does_not_exist_is_a_setup_error() -> None:
    with pytest.raises(IUTError, match="could not run 'callproof-no-such-adapter'"):
        CommandClient("callproof-no-such-adapter --x", "responses").run(REQUEST, "http://x/v1", timeout=5)
    with pytest.raises(IUTError, match="--client-cmd is empty"):
        CommandClient("   ", "responses")


def test_in_process_adapter(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "my_adapter.py").write_text(
        "def ok(request, base_url):\n    return {'text': base_url, 'tool_calls': []}\n"
        "def boom(request, base_url):\n    raise ValueError('nope')\n"
        "not_callable = 3\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    run = InProcessClient("my_adapter:ok", "responses").run(REQUEST, "http://x/v1", timeout=5)
    assert run.result == {"text": "http://x/v1", "tool_calls": []}
    failed = InProcessClient("my_adapter:boom", "responses").run(REQUEST, "http://x/v1", timeout=5)
    assert failed.problem == "the function raised ValueError: nope" and "ValueError: nope" in failed.stderr
    with pytest.raises(IUTError, match="is not callable"):
        InProcessClient("my_adapter:not_callable", "responses")
    with pytest.raises(IUTError, match="has no attribute 'missing'"):
        InProcessClient("my_adapter:missing", "responses")
    with pytest.raises(IUTError, match="is not module:attribute"):
        InProcessClient("my_adapter", "responses")


def test_in_process_adapter_that_hangs_times_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "slow_adapter.py").write_text(
        "import threading\nrelease = threading.Event()\n"
        "def run(request, base_url):\n    release.wait(30)\n    return {}\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    adapter = InProcessClient("slow_adapter:run", "responses")
    run = adapter.run(REQUEST, "http://x/v1", timeout=0.3)
    assert run.timed_out and run.problem == "the function did not return within the case timeout of 0.3 s"
    import slow_adapter  # type: ignore[import-not-found]

    slow_adapter.release.set()


def test_command_adapter_gets_its_dialect_and_the_anthropic_base_url(tmp_path: Path) -> None:
    script = tmp_path / "adapter.py"
    script.write_text("""
import json, os, sys
json.load(sys.stdin)
print(json.dumps({"text": os.environ["CALLPROOF_DIALECT"] + "|" + os.environ["ANTHROPIC_BASE_URL"] + "|"
                  + os.environ["ANTHROPIC_API_KEY"], "tool_calls": [], "error": None, "incomplete": False}))
""", encoding="utf-8")
    run = CommandClient(f"{sys.executable} {script}", "anthropic").run(REQUEST, "http://127.0.0.1:1/v1", timeout=30)
    assert run.result is not None and run.result["text"] == "anthropic|http://127.0.0.1:1|callproof"


def test_in_process_adapter_gets_the_dialect_when_it_takes_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "dialect_adapter.py").write_text(
        "def named(request, base_url, dialect='responses'):\n    return {'text': dialect, 'tool_calls': []}\n"
        "def keywords(request, base_url, **options):\n    return {'text': options['dialect'], 'tool_calls': []}\n"
        "def plain(request, base_url):\n    return {'text': 'plain', 'tool_calls': []}\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    texts = [InProcessClient(f"dialect_adapter:{name}", "chat").run(REQUEST, "http://x/v1", timeout=5).result
             for name in ("named", "keywords", "plain")]
    assert [t["text"] if t else None for t in texts] == ["chat", "chat", "plain"]
