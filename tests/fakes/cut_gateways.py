"""Gateways for the ways an upstream's stream can end early, and the ways a front can say so.

- An upstream disconnect relayed as a bare cut: the front body just ends, with no error event (docs/spec/contracts.md
  §7.8, "A cut relayed as a cut is the gateway's finding"). GW-FAULT-003 passes them (no normal finish); the front's
  lifecycle rules fail them. The reference gateway sends the front's error event.
- An upstream disconnect relayed as an abort: the front's chunked body is aborted (no zero-length last chunk), which
  every official SDK raises on (docs/spec/verdicts.md §7): an error ending, which passes; a front that aborts a body
  whose turn finished hands its client an error for a good answer (EXP-004).
- An Anthropic upstream that ends cleanly after `message_delta` carried its `stop_reason`, without `message_stop`
  (`fault_truncate`): the Message is whole, and a gateway may finish the front's turn from it, as the anthropic SDK
  does, or fail it, as the reference gateway does (docs/spec/verdicts.md §1); inventing a finish for a stream cut
  before the `stop_reason` fails GW-FAULT-003.

`tests/fakes/gateways.py` lists them in its `DEFECTS`."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from examples.gateway import AnthropicFront, AnthropicUpstream, ChatFront, Front, Request, ResponsesFront, UpstreamCut
from examples.gateway.fronts.anthropic import AnthropicTurn
from examples.gateway.fronts.chat import ChatTurn
from examples.gateway.fronts.responses import Turn
from examples.gateway.model import Event
from examples.gateway.upstreams.anthropic import ReadState

__all__ = ["CUT_DEFECTS"]


class CutsResponses(ResponsesFront):
    """cuts_on_upstream_cut: the upstream's disconnect ends the Responses body with no terminal event
    (RSP-LIFE-002)."""

    def on_upstream_cut(self, turn: Turn, message: str) -> None:
        return None


class CutsChat(ChatFront):
    """chat_cuts_on_upstream_cut: the upstream's disconnect ends the Chat body with no error chunk, no
    finish_reason and no [DONE] (CHAT-FIN-001, CHAT-FRAME-001)."""

    def on_upstream_cut(self, turn: ChatTurn, message: str) -> None:
        return None


class CutsAnthropic(AnthropicFront):
    """anthropic_cuts_on_upstream_cut: the upstream's disconnect ends the Anthropic body with no error event and
    no message_stop (ANT-LIFE-002)."""

    def on_upstream_cut(self, turn: AnthropicTurn, message: str) -> None:
        return None


class FrontAborted(ConnectionAbortedError):
    """Raised out of a front's stream: the server drops the connection, the chunked body never gets its end."""


def _abort(message: str) -> None:
    raise FrontAborted(f"the front's body is aborted: {message}")


class AbortsResponses(ResponsesFront):
    """aborts_on_upstream_cut: the upstream's disconnect aborts the Responses body (no terminal event, no end of
    the chunked body). Correct: the SDK raises, an error ending (docs/spec/verdicts.md §7)."""

    def on_upstream_cut(self, turn: Turn, message: str) -> None:
        _abort(message)


class AbortsChat(ChatFront):
    """chat_aborts_on_upstream_cut: the same at the Chat front (no error chunk, no [DONE], no end of the body).
    Correct (docs/spec/verdicts.md §7)."""

    def on_upstream_cut(self, turn: ChatTurn, message: str) -> None:
        _abort(message)


class AbortsAnthropic(AnthropicFront):
    """anthropic_aborts_on_upstream_cut: the same at the Anthropic front (no error event, no message_stop, the
    tool_use block left open, no end of the body). Correct: ANT-LIFE-002 and ANT-TOOL-002 do not fail it
    (docs/spec/verdicts.md §7)."""

    def on_upstream_cut(self, turn: AnthropicTurn, message: str) -> None:
        _abort(message)


async def _aborted_at_end(stream: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    async for part in stream:
        yield part
    _abort("after the whole stream")


class AbortsAfterMessageStop(AnthropicFront):
    """anthropic_aborts_after_message_stop: every Anthropic stream, message_stop included, ends by aborting the body
    instead of its zero-length last chunk: the anthropic SDK reads to the body's end and raises
    `RemoteProtocolError` on a finished turn (EXP-004: the response ended in an error)."""

    def stream_events(self, request: Request, events: AsyncIterator[Event]) -> AsyncIterator[bytes]:
        return _aborted_at_end(super().stream_events(request, events))


class PassesSettledTurn(AnthropicUpstream):
    """passes_settled_turn (--upstream-dialect anthropic): an upstream stream that ends cleanly after message_delta
    carried its stop_reason, without message_stop, finishes the turn from that stop_reason, as the anthropic SDK's
    MessageStream does; without a stop_reason it is still a cut. Correct (docs/spec/verdicts.md §1)."""

    def ended_without_message_stop(self, state: ReadState) -> list[Event]:
        if state.stop_reason is None:
            self.cut_before_stop_reason(state)
        return self.on_event(state, {"type": "message_stop"})  # the finish the stop_reason settled

    def cut_before_stop_reason(self, state: ReadState) -> None:
        raise UpstreamCut("the upstream stream ended without a stop_reason")


class InventsFinishAfterCut(PassesSettledTurn):
    """invents_finish_after_cut (--upstream-dialect anthropic): any clean end of the upstream stream finishes the
    turn, one cut before its stop_reason too, with an invented `end_turn` (GW-FAULT-003; EXP-004)."""

    def cut_before_stop_reason(self, state: ReadState) -> None:
        state.stop_reason = "end_turn"


CUT_DEFECTS: dict[str, type[Front[Any]] | type[AnthropicUpstream]] = {
    "cuts_on_upstream_cut": CutsResponses,
    "chat_cuts_on_upstream_cut": CutsChat,
    "anthropic_cuts_on_upstream_cut": CutsAnthropic,
    "aborts_on_upstream_cut": AbortsResponses,
    "chat_aborts_on_upstream_cut": AbortsChat,
    "anthropic_aborts_on_upstream_cut": AbortsAnthropic,
    "anthropic_aborts_after_message_stop": AbortsAfterMessageStop,
    "passes_settled_turn": PassesSettledTurn,
    "invents_finish_after_cut": InventsFinishAfterCut,
}
