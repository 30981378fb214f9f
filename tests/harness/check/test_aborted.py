"""A stream whose body was aborted (`StreamChecker.close(aborted=True)`, docs/spec/verdicts.md §7): every official SDK
raises on it, so the rules about how a stream ends (the terminal event, `[DONE]`, the blank line after the last
event) and the half call it left open do not fail it, while the same bytes ending cleanly fail them; everything
that arrived before the abort is judged as usual."""

from __future__ import annotations

import pytest

from callproof.harness import CheckReport, StreamChecker
from callproof.harness._types import Dialect
from tests.harness.check.support import CAPTURES

#: Per front: the marker of an argument event in the capture of one tool call, which of them to cut in the middle of
#: (the first with arguments that are not JSON so far), and the rules a clean end there fails (an abort none).
CUT: dict[Dialect, tuple[bytes, int, set[str]]] = {
    "responses": (b"response.function_call_arguments.delta", 2, {"RSP-LIFE-002", "SSE-002"}),
    "chat": (b'"arguments":"', 2, {"CHAT-FRAME-001", "CHAT-FIN-001", "SSE-002"}),
    "anthropic": (b"input_json_delta", 3, {"ANT-LIFE-002", "ANT-TOOL-002", "SSE-002"}),
}


def _cut(front: Dialect) -> bytes:
    """The capture of one call cut in the middle of an argument event (a half call, a half event)."""
    marker, nth, _ = CUT[front]
    data = (CAPTURES / front / "openai" / "ok" / "one-call.sse").read_bytes()
    at = -1
    for _ in range(nth):
        at = data.index(marker, at + 1)
    return data[: at + len(marker) + 4]


def _report(data: bytes, front: Dialect, aborted: bool) -> CheckReport:
    checker = StreamChecker(front)
    checker.feed(data)
    return checker.close(aborted)


@pytest.mark.parametrize("front", list(CUT))
def test_a_clean_end_mid_stream_fails_the_ending_rules_and_an_abort_does_not(front: Dialect) -> None:
    data = _cut(front)
    assert set(_report(data, front, aborted=False).failed_rules) == CUT[front][2]
    assert _report(data, front, aborted=True).failed_rules == ()


def test_an_aborted_anthropic_body_still_fails_a_stopped_block_whose_input_is_not_json() -> None:
    """The abort spares only the block it left open: a tool_use block the server stopped with input that is not JSON
    was handed on whole, and ANT-TOOL-002 fails it."""
    data = (CAPTURES / "anthropic" / "openai" / "ok" / "one-call.sse").read_bytes()
    broken = data.replace(b'"partial_json":"{', b'"partial_json":"[', 1)
    assert broken != data
    cut = broken[: broken.index(b"event: message_delta")]
    assert _report(cut, "anthropic", aborted=True).failed_rules == ("ANT-TOOL-002",)


def test_an_aborted_chat_body_after_done_is_judged_as_usual() -> None:
    """openai-python stops reading at `data: [DONE]`: an abort after it is invisible to a client, and the stream's
    own rules apply as on a clean end."""
    data = (CAPTURES / "chat" / "openai" / "ok" / "one-call.sse").read_bytes()
    assert _report(data, "chat", aborted=True).failed_rules == ()
    no_finish = data.replace(b'"finish_reason":"tool_calls"', b'"finish_reason":null')
    assert no_finish != data
    assert _report(no_finish, "chat", aborted=True).failed_rules == ("CHAT-FIN-001",)
