"""Gateway fakes that translate a Responses history wrongly toward a Chat upstream (docs/spec/contracts.md §7.12),
listed in gateways.py's `DEFECTS`: an assistant turn with text and a call split into two assistant messages, and a
tool result whose call is not in the history silently dropped instead of forwarded for the upstream to judge.
Both are caught by GW-REQ-006 in the scenario's `translation` case.
"""

from __future__ import annotations

from examples.gateway import ChatUpstream, Json, Request

__all__ = ["HISTORY_DEFECTS", "DropsOrphanToolOutput", "SplitsTextAndCalls"]


class SplitsTextAndCalls(ChatUpstream):
    """splits_text_and_calls: an assistant turn with text and calls becomes an assistant text message, then an
    assistant message with the tool_calls and no content (GW-REQ-006 on `multi_turn_text_then_call`)."""

    def translate_messages(self, request: Request) -> list[Json]:
        out: list[Json] = []
        for message in super().translate_messages(request):
            if message.get("role") == "assistant" and message.get("content") and message.get("tool_calls"):
                out += [{"role": "assistant", "content": message["content"]},
                        {"role": "assistant", "content": None, "tool_calls": message["tool_calls"]}]
            else:
                out.append(message)
        return out


class DropsOrphanToolOutput(ChatUpstream):
    """drops_orphan_tool_output: a tool result whose call is not in the history is left out, so the model answers
    as if no result came and the caller never learns its history was broken (GW-REQ-006 on
    `multi_turn_orphan_tool_output`)."""

    def translate_messages(self, request: Request) -> list[Json]:
        out: list[Json] = []
        called: set[str] = set()
        for message in super().translate_messages(request):
            called.update(str(c.get("id")) for c in message.get("tool_calls") or ())
            if message.get("role") != "tool" or message.get("tool_call_id") in called:
                out.append(message)
        return out


HISTORY_DEFECTS = {"splits_text_and_calls": SplitsTextAndCalls, "drops_orphan_tool_output": DropsOrphanToolOutput}
