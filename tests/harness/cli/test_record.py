"""Done-when of issue 14 (record and replay): requests sent through `callproof record` (the openai SDK and httpx,
all three dialects, stream and non-stream, no marker) to a stand-in upstream on loopback (the callproof mock playing
bundled scenarios chosen by header, which the proxy passes on), then replayed by `callproof mock --scenarios DIR
--strict` with no header and no marker, get the same events, ids included; the proxy never changed a byte."""

from __future__ import annotations

import json
import re
import select
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, cast

import httpx
import openai
import pytest

from callproof.harness.check import parse_sse
from callproof.mock_server import MockServer

TIMEOUT = httpx.Timeout(20.0)
PATHS = {"responses": "/responses", "chat": "/chat/completions", "anthropic": "/messages"}
TOOLS = [{"type": "function", "name": "get_weather", "parameters": {"type": "object", "properties": {}}}]


def _start(*argv: str, pattern: str) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([sys.executable, "-m", "callproof.harness.cli", *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], 30)
    line = proc.stdout.readline().rstrip("\n") if ready else ""
    found = re.match(pattern, line)
    if found is None:
        proc.kill()
        _, err = proc.communicate(timeout=10)
        pytest.fail(f"{argv[0]}: unexpected first line {line!r}; stderr: {err}")
    return proc, found.group(1)


def _stop(proc: subprocess.Popen[str], sig: signal.Signals = signal.SIGTERM) -> tuple[int, str]:
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=30)
    return proc.returncode, err


def _body(dialect: str, text: str, stream: bool) -> dict[str, Any]:
    body: dict[str, Any] = {"model": "gpt-4o-mini", "stream": stream}
    if dialect == "responses":
        body["input"] = [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}]
        body["tools"] = TOOLS
    else:
        body["messages"] = [{"role": "user", "content": text}]
    if dialect == "anthropic":
        body["max_tokens"] = 256
    return body


#: (dialect, stream, bundled scenario the stand-in plays) for the httpx requests.
RAW = [("responses", True, "interleaved_round_robin"), ("responses", False, "non_stream_parallel_calls"),
       ("chat", True, "fragmented_name"), ("chat", False, "one_call"),
       ("anthropic", True, "reasoning_before_call"), ("anthropic", False, "text_around_calls"),
       ("chat", True, "fault_http_429")]


def _events(answer: httpx.Response) -> Any:
    """The answer as parsed payloads: SSE events (type, JSON data), or the JSON body, with the status."""
    if answer.headers.get("content-type", "").startswith("text/event-stream"):
        events, issues = parse_sse(answer.content)
        assert not issues
        return answer.status_code, [(e.type, e.data if e.data == "[DONE]" else json.loads(e.data)) for e in events]
    return answer.status_code, answer.json()


def _sdk_calls(headers: Callable[[str], dict[str, str]]) -> list[tuple[str, Callable[[openai.OpenAI], Any]]]:
    """The openai SDK requests: name, and a call returning the parsed result (event dumps of a stream)."""
    def responses_stream(client: openai.OpenAI) -> Any:
        stream = client.responses.create(model="gpt-4o-mini", input="SDK: weather in Paris and Rome?", stream=True,
                                          tools=cast(Any, TOOLS), extra_headers=headers("parallel_two_calls"))
        return [event.model_dump() for event in stream]

    def responses_body(client: openai.OpenAI) -> Any:
        return client.responses.create(model="gpt-4o-mini", input="SDK: say hello",
                                       extra_headers=headers("non_stream_text")).model_dump()

    def chat_stream(client: openai.OpenAI) -> Any:
        stream = client.chat.completions.create(model="gpt-4o-mini", stream=True,
                                                messages=[{"role": "user", "content": "SDK: interleave"}],
                                                extra_headers=headers("interleaved_explicit_order"))
        return [chunk.model_dump() for chunk in stream]

    def chat_body(client: openai.OpenAI) -> Any:
        return client.chat.completions.create(model="gpt-4o-mini",
                                              messages=[{"role": "user", "content": "SDK: two calls"}],
                                              extra_headers=headers("non_stream_parallel_calls")).model_dump()

    return [("responses_stream", responses_stream), ("responses_body", responses_body),
            ("chat_stream", chat_stream), ("chat_body", chat_body)]


@pytest.fixture(scope="module")
def mock() -> Iterator[MockServer]:
    with MockServer(strict=True) as server:
        yield server


def test_record_then_replay_with_no_marker_gives_the_same_events(mock: MockServer, tmp_path: Path) -> None:
    out = tmp_path / "recorded"

    def chosen(sid: str) -> dict[str, str]:
        return {"x-callproof-scenario": sid}

    # 1. direct, to know what the stand-in answers
    direct: dict[str, Any] = {}
    with httpx.Client(timeout=TIMEOUT) as client:
        for n, (dialect, stream, sid) in enumerate(RAW):
            answer = client.post(mock.url + PATHS[dialect], json=_body(dialect, f"httpx {n}: {sid}", stream),
                                 headers=chosen(sid))
            direct[f"raw{n}"] = answer
    with openai.OpenAI(base_url=mock.url, api_key="sk-direct", max_retries=0) as sdk:
        for name, call in _sdk_calls(chosen):
            direct[name] = call(sdk)

        # 2. the same requests through `callproof record`
        proc, url = _start("record", "--upstream", mock.root_url, "--out", str(out), "--port", "0",
                           pattern=r"^callproof record listening on (http://127\.0\.0\.1:\d+/v1), forwarding to ")
        try:
            with httpx.Client(timeout=TIMEOUT) as client:
                for n, (dialect, stream, sid) in enumerate(RAW):
                    answer = client.post(url + PATHS[dialect], json=_body(dialect, f"httpx {n}: {sid}", stream),
                                         headers={**chosen(sid), "authorization": "Bearer sk-SECRET"})
                    assert answer.status_code == direct[f"raw{n}"].status_code
                    assert answer.content == direct[f"raw{n}"].content, f"the proxy changed the bytes of {sid}"
            with openai.OpenAI(base_url=url, api_key="sk-SECRET", max_retries=0) as proxied:
                for name, call in _sdk_calls(chosen):
                    assert call(proxied) == direct[name], name
        finally:
            code, err = _stop(proc)
        assert code == 0, err
        files = sorted(out.glob("rec_*.json"))
        assert len(files) == len(RAW) + 4 and f"{len(files)} exchange(s) recorded" in err
        assert not any("SECRET" in f.read_text() for f in files)

        # 3. replayed by `callproof mock --scenarios DIR --strict`, with no header and no marker
        proc, url = _start("mock", "--scenarios", str(out), "--strict", "--port", "0",
                           pattern=r"^callproof mock listening on (http://127\.0\.0\.1:\d+/v1)$")
        try:
            with httpx.Client(timeout=TIMEOUT) as client:
                for n, (dialect, stream, sid) in enumerate(RAW):
                    again = client.post(url + PATHS[dialect], json=_body(dialect, f"httpx {n}: {sid}", stream))
                    assert _events(again) == _events(direct[f"raw{n}"]), sid
                    if sid == "fault_http_429":
                        assert again.headers["retry-after"] == direct[f"raw{n}"].headers["retry-after"]
                with openai.OpenAI(base_url=url, api_key="sk-other", max_retries=0) as replayed:
                    for name, call in _sdk_calls(lambda sid: {}):
                        assert call(replayed) == direct[name], name
                    journal = [json.loads(line) for line in
                               client.get(url.removesuffix("/v1") + "/_callproof/journal").text.splitlines()]
        finally:
            code, err = _stop(proc)
        assert code == 0, err
        requests = [r for r in journal if r["kind"] == "request"]
        assert len(requests) == len(RAW) + 4
        assert all(r["how"].startswith("match user_text.equals, model") for r in requests)
        assert sorted(r["scenario"] for r in requests) == [f.stem for f in files]


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_record_exits_0_on_a_signal_like_mock(tmp_path: Path, sig: signal.Signals) -> None:
    proc, _ = _start("record", "--upstream", "http://127.0.0.1:9", "--out", str(tmp_path / "out"),
                     pattern=r"^callproof record listening on (http://127\.0\.0\.1:\d+/v1), ")
    code, err = _stop(proc, sig)
    assert code == 0 and "Traceback" not in err and "0 exchange(s) recorded" in err
    assert list((tmp_path / "out").iterdir()) == []


def test_record_usage_errors_are_one_line(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "callproof.harness.cli", "record", "--upstream", "ftp://x",
                           "--out", str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stderr == "callproof record: --upstream 'ftp://x' is not an http(s) URL\n"
