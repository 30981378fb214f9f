"""The item-stream fakes (tests/fakes/item_streams.py) on the bundled item captures: with no defect the stream
passes byte for byte; each defect makes a correct stream fail its one rule (RSP-ITEM-001..009), chunked as it
arrives in any split. The mutation table runs the same fakes as real gateways in front of the mock."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from callproof.harness import check_bytes
from tests.fakes import item_streams
from tests.fakes.item_streams import DEFECTS, Corruption, Renumbered
from tests.harness.check.item_wire import OK, sse

#: defect -> (the correct stream it corrupts, the rule that catches it).
EXPECTED = {
    "custom_input_done_differs": ("custom-tool-call", "RSP-ITEM-001"),
    "mcp_args_dropped_delta": ("mcp-call", "RSP-ITEM-002"),
    "shell_command_done_differs": ("shell-call", "RSP-ITEM-003"),
    "shell_output_done_differs": ("shell-call", "RSP-ITEM-004"),
    "reasoning_text_done_differs": ("reasoning", "RSP-ITEM-005"),
    "summary_text_differs": ("reasoning", "RSP-ITEM-006"),
    "code_done_differs": ("code-interpreter", "RSP-ITEM-007"),
    "annotation_index_skipped": ("annotations", "RSP-ITEM-008"),
    "delta_after_done": ("custom-tool-call", "RSP-ITEM-009"),
    "summary_part_not_added": ("reasoning", "RSP-ITEM-009"),
}


def _through(corruption: Corruption, data: bytes, size: int) -> bytes:
    renumbered = Renumbered(corruption)
    out = b"".join(renumbered.feed(data[i:i + size]) for i in range(0, len(data), size))
    return out + renumbered.rest()


def test_every_defect_is_expected() -> None:
    assert set(EXPECTED) == set(DEFECTS)


@pytest.mark.parametrize("name", sorted(OK))
@pytest.mark.parametrize("size", [1, 7, 1 << 20])
def test_without_a_defect_the_stream_passes_byte_for_byte(name: str, size: int) -> None:
    data = sse(OK[name]())
    assert _through(Corruption(), data, size) == data


@pytest.mark.parametrize("defect", sorted(EXPECTED))
@pytest.mark.parametrize("size", [3, 1 << 20])
def test_a_defect_fails_its_rule_alone(defect: str, size: int) -> None:
    name, rule = EXPECTED[defect]
    data = sse(OK[name]())
    assert check_bytes(data, front="responses", profile="openai").failed_rules == ()
    corrupted = _through(DEFECTS[defect](), data, size)
    assert corrupted != data
    assert check_bytes(corrupted, front="responses", profile="openai").failed_rules == (rule,)


def _upstream(data: bytes) -> Starlette:
    """A Responses upstream that streams `data` in 64-byte writes."""

    async def answer(request: Request) -> Response:
        async def chunks() -> Iterator[bytes]:  # type: ignore[misc]
            for i in range(0, len(data), 64):
                yield data[i:i + 64]
        return StreamingResponse(chunks(), media_type="text/event-stream")

    return Starlette(routes=[Route("/v1/responses", answer, methods=["POST"])])


@contextmanager
def _served(app: Starlette) -> Iterator[str]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@pytest.mark.parametrize("defect", [None, "custom_input_done_differs", "delta_after_done"])
def test_the_fake_serves_over_http(defect: str | None) -> None:
    """As the mutation table launches it (`tests.fakes.gateways --defect NAME`, which serves this app)."""
    data = sse(OK["custom-tool-call"]())
    with _served(_upstream(data)) as upstream, _served(item_streams.create_app(upstream, defect)) as front:
        got = httpx.post(f"{front}/responses", json={"model": "m", "stream": True}, timeout=10).content
    rules = check_bytes(got, front="responses", profile="openai").failed_rules
    if defect is None:
        assert got == data and rules == ()
    else:
        assert rules == (EXPECTED[defect][1],)
