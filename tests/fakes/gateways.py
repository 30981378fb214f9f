"""Broken gateways: the reference gateway (examples/gateway.py) with exactly one defect each, for tests that prove
the harness catches it. Each class overrides one method; its docstring names the defect and the rule that must
fail.

    python -m tests.fakes.gateways --defect buffering --upstream http://127.0.0.1:PORT/v1 --port N

Without --defect the correct gateway of `--upstream-dialect` (chat by default) runs unchanged. `DEFECTS` maps
each defect name to its class.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator, Sequence
from typing import Any, ClassVar

import httpx
from starlette.responses import Response

from examples.gateway import Gateway, Item, Json, Turn, create_app, parser, serve

__all__ = ["DEFECTS", "create_app", "main"]


def _without(front: Json, key: str) -> Json:
    return {name: value for name, value in front.items() if name != key}


class Buffering(Gateway):
    """buffering: reads the whole upstream stream before writing any front event (GW-STREAM-001)."""

    async def stream_events(self, front: Json, upstream: httpx.Response) -> AsyncIterator[bytes]:
        parts = [part async for part in super().stream_events(front, upstream)]
        yield b"".join(parts)


class FlushEvery3(Gateway):
    """flush_every_3: front events are written in batches of three upstream-driven writes, so an event can be held
    across an upstream pause until more upstream data arrives (GW-STREAM-002)."""

    async def stream_events(self, front: Json, upstream: httpx.Response) -> AsyncIterator[bytes]:
        held: list[bytes] = []
        async for part in super().stream_events(front, upstream):
            held.append(part)
            if len(held) == 3:
                yield b"".join(held)
                held = []
        if held:
            yield b"".join(held)


class Delayed40ms(Gateway):
    """delayed_40ms (correct, not a defect): every front write leaves 40 ms after the upstream data that caused it,
    through a delay line, so nothing is held across an upstream pause: latency, not buffering."""

    DELAY = 0.040

    async def stream_events(self, front: Json, upstream: httpx.Response) -> AsyncIterator[bytes]:
        loop = asyncio.get_running_loop()
        line: asyncio.Queue[tuple[float, bytes] | None] = asyncio.Queue()

        async def read() -> None:
            try:
                async for part in super(Delayed40ms, self).stream_events(front, upstream):
                    line.put_nowait((loop.time() + self.DELAY, part))
            finally:
                line.put_nowait(None)

        reader = asyncio.ensure_future(read())
        try:
            while (item := await line.get()) is not None:
                await asyncio.sleep(max(0.0, item[0] - loop.time()))
                yield item[1]
        finally:
            reader.cancel()


class CompletesOnDisconnect(Gateway):
    """completes_on_disconnect: an upstream stream that drops or ends without finish_reason / [DONE] becomes
    response.completed (GW-FAULT-003)."""

    def on_upstream_cut(self, turn: Turn, message: str) -> None:
        turn.finish_reason = turn.finish_reason or "stop"
        self.finish(turn)


class DropsRetryAfter(Gateway):
    """drops_retry_after: the upstream 429's Retry-After header is not forwarded (GW-FAULT-002)."""

    def error_headers(self, upstream: httpx.Response) -> dict[str, str]:
        return {}


class ErrorAsStream(Gateway):
    """error_as_stream: an upstream HTTP error becomes a 200 SSE stream ending in response.failed
    (GW-FAULT-001)."""

    def error_response(self, front: Json, upstream: httpx.Response, content: bytes) -> Response:
        turn = self.new_turn(front)
        self.start(turn)
        self.fail(turn, "upstream_error", f"The upstream answered HTTP {upstream.status_code}.")
        return Response(self.flush(turn), media_type="text/event-stream")


class DropsToolSchemas(Gateway):
    """drops_tool_schemas: tools reach the upstream with empty parameters and no description (GW-REQ-002)."""

    def translate_tool(self, tool: Json) -> Json:
        return {"type": "function", "function": {"name": tool.get("name"), "parameters": {}}}


class DropsToolChoice(Gateway):
    """drops_tool_choice: tool_choice never reaches the upstream (GW-REQ-003)."""

    def translate_request(self, front: Json) -> Json:
        return super().translate_request(_without(front, "tool_choice"))


class DropsParallelFlag(Gateway):
    """drops_parallel_flag: parallel_tool_calls never reaches the upstream (GW-REQ-004)."""

    def translate_request(self, front: Json) -> Json:
        return super().translate_request(_without(front, "parallel_tool_calls"))


class DropsInstructions(Gateway):
    """drops_instructions: instructions are not sent upstream as the system message (GW-REQ-005)."""

    def translate_request(self, front: Json) -> Json:
        return super().translate_request(_without(front, "instructions"))


class DropsToolResults(Gateway):
    """drops_tool_results: function_call_output input items are not forwarded (GW-REQ-006)."""

    def translate_request(self, front: Json) -> Json:
        items = front.get("input")
        if isinstance(items, list):
            front = {**front, "input": [i for i in items if i.get("type") != "function_call_output"]}
        return super().translate_request(front)


class DropsMaxTokens(Gateway):
    """drops_max_tokens: max_output_tokens is not forwarded as max_completion_tokens (GW-REQ-007)."""

    def translate_request(self, front: Json) -> Json:
        return super().translate_request(_without(front, "max_output_tokens"))


class FreshCallIds(Gateway):
    """fresh_call_ids: every call gets a synthesized call_id instead of the upstream's id (GW-ID-001)."""

    def call_id(self, turn: Turn, upstream_id: str | None) -> str:
        return super().call_id(turn, None)


class LengthAsCompleted(Gateway):
    """length_as_completed: finish_reason "length" becomes response.completed (GW-FAULT-004)."""

    def status_for(self, finish_reason: str) -> tuple[str, str | None]:
        return ("completed", None) if finish_reason == "length" else super().status_for(finish_reason)


class MixedInterleavedArgs(Gateway):
    """mixed_interleaved_args: every argument fragment goes to the most recently opened call, so interleaved
    calls mix their arguments (RSP-ARGS-004 on the broken JSON, EXP-002 on the arguments)."""

    def on_arguments(self, turn: Turn, call: Item, fragment: str) -> None:
        super().on_arguments(turn, list(turn.calls.values())[-1], fragment)


class EmptyArgumentsPassthrough(Gateway):
    """empty_arguments_passthrough: a call's "" arguments are forwarded unchanged instead of "{}"
    (RSP-ARGS-004)."""

    def final_arguments(self, arguments: str) -> str:
        return arguments


class NoSequenceNumbers(Gateway):
    """no_sequence_numbers: events carry no sequence_number (RSP-SEQ-001)."""

    def encode_event(self, event: Json) -> bytes:
        return super().encode_event(_without(event, "sequence_number"))


class FirstNameFragment(Gateway):
    """first_name_fragment: of a tool name split across chat deltas only the first fragment is kept
    (EXP-001)."""

    def merge_name(self, name: str, fragment: str) -> str:
        return name or fragment


class SharedState(Gateway):
    """shared_state: the output items and the calls by chat index live in process-wide state that every
    response streaming at the same time uses, so concurrent responses mix their calls and items (GW-ISO-001).
    A request alone (nothing else streaming) starts from fresh state and is correct."""

    _streaming: ClassVar[list[Any]] = []  # the turns that are not closed yet

    def new_turn(self, front: Json) -> Turn:
        turn = super().new_turn(front)
        live = [other for other in self._streaming if not other.closed]
        if live:
            turn.items, turn.calls = live[0].items, live[0].calls
        self._streaming[:] = [*live, turn]
        return turn


class DropsTextDeltas(Gateway):
    """drops_text_deltas: of each message only the first text delta is forwarded, the rest of the text is lost
    (EXP-003)."""

    def on_text(self, turn: Turn, text: str) -> None:
        if turn.message is None:
            super().on_text(turn, text)


class NonStreamDropsCalls(Gateway):
    """non_stream_drops_calls: the non-stream response keeps only message items, dropping the function calls
    (GW-EQ-001)."""

    def translate_completion(self, front: Json, completion: Any) -> Json:
        response = super().translate_completion(front, completion)
        response["output"] = [item for item in response["output"] if item["type"] == "message"]
        return response


class LastMessageOnly(Gateway):
    """last_message_only: only the last input item reaches the upstream, so earlier user text (and the case
    marker in it) is lost in multi-turn requests (GW-REQ-001)."""

    def translate_messages(self, front: Json) -> list[Json]:
        return super().translate_messages(front)[-1:]


class DiesOnLargeArguments(Gateway):
    """dies_on_large_arguments: the process exits while answering the `large_arguments` scenario. Not a rule:
    the harness marks that case `error` with the stderr tail, restarts the gateway, and runs the other cases."""

    def translate_request(self, front: Json) -> Json:
        if "[callproof:scenario=large_arguments]" in json.dumps(front):
            print("dies_on_large_arguments: exiting mid-request", file=sys.stderr, flush=True)
            os._exit(70)
        return super().translate_request(front)


class FinalOutputRebuilt(Gateway):
    """final_output_rebuilt: the terminal response's output is rebuilt from the items as they were added, so each
    still says status in_progress while its output_item.done said completed (RSP-ID-011)."""

    def terminate(self, turn: Turn, status: str, **fields: Any) -> None:
        for item in turn.items:
            if item.done is not None:
                item.done = {**item.done, "status": "in_progress"}
        super().terminate(turn, status, **fields)


class CompletedDespiteCutItems(Gateway):
    """completed_despite_cut_items: the item the length limit cut ends incomplete, but the response ends with
    response.completed (RSP-LIFE-011)."""

    def terminate(self, turn: Turn, status: str, **fields: Any) -> None:
        if status == "incomplete":
            status, fields = "completed", {}
        super().terminate(turn, status, **fields)


class BareUsage(Gateway):
    """bare_usage: usage carries only the three token counts, without input_tokens_details and
    output_tokens_details, which the OpenAI SDK's ResponseUsage requires (RSP-SCHEMA-001)."""

    def translate_usage(self, usage: Json) -> Json:
        full = super().translate_usage(usage)
        return {key: full[key] for key in ("input_tokens", "output_tokens", "total_tokens")}


class EventLineHeartbeat(Gateway):
    """event_line_heartbeat: a heartbeat written as a bare `event: ping` block without data before each write;
    openai-python fails to json-decode it (SSE-007)."""

    def flush(self, turn: Turn) -> bytes:
        return b"event: ping\n\n" + super().flush(turn)


class NoEventLines(Gateway):
    """no_event_lines: events are written as `data:` lines only, without the `event:` line the OpenAI API sends
    (RSP-FRAME-005)."""

    def encode_event(self, event: Json) -> bytes:
        return b"".join(line + b"\n" for line in super().encode_event(event).split(b"\n")
                        if line and not line.startswith(b"event:")) + b"\n"


DEFECTS: dict[str, type[Gateway]] = {
    "buffering": Buffering,
    "flush_every_3": FlushEvery3,
    "delayed_40ms": Delayed40ms,
    "completes_on_disconnect": CompletesOnDisconnect,
    "drops_retry_after": DropsRetryAfter,
    "error_as_stream": ErrorAsStream,
    "drops_tool_schemas": DropsToolSchemas,
    "drops_tool_choice": DropsToolChoice,
    "drops_parallel_flag": DropsParallelFlag,
    "drops_instructions": DropsInstructions,
    "drops_tool_results": DropsToolResults,
    "drops_max_tokens": DropsMaxTokens,
    "fresh_call_ids": FreshCallIds,
    "length_as_completed": LengthAsCompleted,
    "mixed_interleaved_args": MixedInterleavedArgs,
    "empty_arguments_passthrough": EmptyArgumentsPassthrough,
    "no_sequence_numbers": NoSequenceNumbers,
    "first_name_fragment": FirstNameFragment,
    "shared_state": SharedState,
    "non_stream_drops_calls": NonStreamDropsCalls,
    "drops_text_deltas": DropsTextDeltas,
    "last_message_only": LastMessageOnly,
    "dies_on_large_arguments": DiesOnLargeArguments,
    "final_output_rebuilt": FinalOutputRebuilt,
    "completed_despite_cut_items": CompletedDespiteCutItems,
    "bare_usage": BareUsage,
    "event_line_heartbeat": EventLineHeartbeat,
    "no_event_lines": NoEventLines,
}


def main(argv: Sequence[str] | None = None) -> int:
    command = parser()
    command.add_argument("--defect", choices=sorted(DEFECTS), help="the one defect to inject (default: none)")
    args = command.parse_args(argv)
    gateway = DEFECTS[args.defect] if args.defect else None  # None: the reference gateway of the dialect
    serve(create_app(args.upstream, dialect=args.upstream_dialect, gateway=gateway), args.host, args.port)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
