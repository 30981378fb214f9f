"""Gateways that relay an upstream's mid-stream disconnect as a bare cut: the front body just ends, with no error
event (docs/spec/contracts.md §7.8, "A cut relayed as a cut is the gateway's finding"). GW-FAULT-003 passes them
(no normal finish); the front's lifecycle rules fail them. The reference gateway sends the front's error event.
`tests/fakes/gateways.py` lists them in its `DEFECTS`."""

from __future__ import annotations

from typing import Any

from examples.gateway import AnthropicFront, ChatFront, Front, ResponsesFront
from examples.gateway.fronts.anthropic import AnthropicTurn
from examples.gateway.fronts.chat import ChatTurn
from examples.gateway.fronts.responses import Turn

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


CUT_DEFECTS: dict[str, type[Front[Any]]] = {"cuts_on_upstream_cut": CutsResponses,
                                            "chat_cuts_on_upstream_cut": CutsChat,
                                            "anthropic_cuts_on_upstream_cut": CutsAnthropic}
