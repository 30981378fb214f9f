"""Broken gateways: the reference gateway (examples/gateway/) with exactly one defect each, for tests that prove
the harness catches it. Each class subclasses one front (or upstream) of the reference gateway and overrides one
method; its docstring names the defect and the rule that must fail. The broken front replaces the reference one
of its dialect; the other fronts stay correct.

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
from typing import Any

from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp

from examples.gateway import (
    AnthropicFront,
    ChatFront,
    ChatUpstream,
    Front,
    Json,
    Request,
    ResponsesFront,
    Upstream,
    UpstreamHTTPError,
    create_app,
    parser,
    serve,
)
from examples.gateway.fronts.anthropic import AnthropicTurn, Block
from examples.gateway.fronts.chat import ChatTurn
from examples.gateway.fronts.responses import Turn
from examples.gateway.fronts.websocket import WebSocketFront
from examples.gateway.model import Event, FinishReason, Part, Tool, Usage

from . import gateways_gaps, ws_gateways
from .args_gateways import ARGS_DEFECTS
from .cancel_gateways import CANCEL_DEFECTS
from .chat_stream_gateways import CHAT_STREAM_DEFECTS
from .concurrency import OneAtATime, SharedState, serialised
from .cut_gateways import CUT_DEFECTS
from .edge_gateways import EDGE_DEFECTS
from .evidence_gateways import EVIDENCE_DEFECTS
from .exposure_gateways import EXPOSURE_DEFECTS
from .history_gateways import HISTORY_DEFECTS
from .isolation_gateways import ISOLATION_DEFECTS
from .item_gateways import ITEM_DEFECTS
from .item_streams import ITEM_STREAM_DEFECTS, Corruption
from .item_streams import create_app as item_stream_app
from .leak_gateways import LEAK_DEFECTS
from .limits import RunawayStream
from .loop_gateways import LOOP_DEFECTS
from .request_gateways import REQUEST_DEFECTS
from .schema_gateways import SCHEMA_DEFECTS
from .seed_gateways import SEED_DEFECTS
from .stateful_gateways import STATEFUL_DEFECTS
from .xml_tool_text import XML_DEFECTS

__all__ = ["DEFECTS", "create_app", "gateway_app", "main"]


def _without(front: Json, key: str) -> Json:
    return {name: value for name, value in front.items() if name != key}


async def _all_at_once(parts: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    yield b"".join([part async for part in parts])


# -- the Responses front ----------------------------------------------------------------------------------------


class Buffering(ResponsesFront):
    """buffering: reads the whole upstream stream before writing any front event (GW-STREAM-001)."""

    def stream_events(self, request: Request, events: AsyncIterator[Event]) -> AsyncIterator[bytes]:
        return _all_at_once(super().stream_events(request, events))


#: A child that keeps one CPU busy: pinned to the CPU given, it says so and spins until killed (10 s at most).
_SPIN = ("import os, sys, time\nos.sched_setaffinity(0, {int(sys.argv[1])})\nprint(flush=True)\n"
         "end = time.monotonic() + 10\nwhile time.monotonic() < end:\n    pass\n")
#: How many children crowd the CPU: all but one of them wait for it at any moment.
CROWD = 3


async def _crowded_burst(parts: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    """The whole stream in one write at its end, while CROWD children of the gateway spin on one CPU (Linux): its
    process tree waits for a CPU through the stretch the timing rules read, as a gateway kept from running does.
    Crowded for at least as long again as the children took to start, and 0.3 s past the write."""
    loop = asyncio.get_running_loop()
    start = loop.time()
    cpu = str(min(os.sched_getaffinity(0)))
    children = [await asyncio.create_subprocess_exec(sys.executable, "-c", _SPIN, cpu, stdout=asyncio.subprocess.PIPE)
                for _ in range(CROWD)]
    try:
        for child in children:
            assert child.stdout is not None
            await child.stdout.readline()
        ready = loop.time()
        burst = b"".join([part async for part in parts])
        await asyncio.sleep(max(0.0, 2 * ready - start - loop.time()))
        yield burst
        await asyncio.sleep(0.3)
    finally:
        for child in children:
            if child.returncode is None:
                child.kill()
            await child.wait()


class CrowdedOnce(ResponsesFront):
    """crowded_once: its first stream is written all at once at its end while its own children keep a CPU busy (its
    process tree waits for a CPU), every later one as it comes: late in one play only, as a streaming gateway kept
    from running is, so the harness plays the case again and passes it (test_gateway_timing.py)."""

    def __init__(self) -> None:
        super().__init__()
        self.streams = 0

    def stream_events(self, request: Request, events: AsyncIterator[Event]) -> AsyncIterator[bytes]:
        self.streams += 1
        parts = super().stream_events(request, events)
        return _crowded_burst(parts) if self.streams == 1 else parts


class CrowdedBuffering(ResponsesFront):
    """crowded_buffering: every stream is written all at once at its end while its own children keep a CPU busy:
    late in every play, the load there in each, so it fails after the last play (test_gateway_timing.py)."""

    def stream_events(self, request: Request, events: AsyncIterator[Event]) -> AsyncIterator[bytes]:
        return _crowded_burst(super().stream_events(request, events))


class FlushEvery3(ResponsesFront):
    """flush_every_3: front events are written in batches of three upstream-driven writes, so an event can be held
    across an upstream pause until more upstream data arrives (GW-STREAM-002)."""

    async def stream_events(self, request: Request, events: AsyncIterator[Event]) -> AsyncIterator[bytes]:
        held: list[bytes] = []
        async for part in super().stream_events(request, events):
            held.append(part)
            if len(held) == 3:
                yield b"".join(held)
                held = []
        if held:
            yield b"".join(held)


class Delayed40ms(ResponsesFront):
    """delayed_40ms (correct, not a defect): every front write leaves 40 ms after the upstream data that caused it,
    through a delay line, so nothing is held across an upstream pause: latency, not buffering."""

    DELAY = 0.040

    async def stream_events(self, request: Request, events: AsyncIterator[Event]) -> AsyncIterator[bytes]:
        loop = asyncio.get_running_loop()
        line: asyncio.Queue[tuple[float, bytes] | None] = asyncio.Queue()

        async def read() -> None:
            try:
                async for part in super(Delayed40ms, self).stream_events(request, events):
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


class CompletesOnDisconnect(ResponsesFront):
    """completes_on_disconnect: an upstream stream that drops or ends without finish_reason / [DONE] becomes
    response.completed (GW-FAULT-003)."""

    def on_upstream_cut(self, turn: Turn, message: str) -> None:
        self.finish(turn, "stop")


class DropsRetryAfter(ResponsesFront):
    """drops_retry_after: the upstream 429's Retry-After header is not forwarded (GW-FAULT-002)."""

    def error_headers(self, error: UpstreamHTTPError) -> dict[str, str]:
        return {}


class ErrorAsStream(ResponsesFront):
    """error_as_stream: an upstream HTTP error becomes a 200 SSE stream ending in response.failed
    (GW-FAULT-001)."""

    def error_response(self, request: Request, error: UpstreamHTTPError) -> Response:
        turn = self.new_turn(request)
        self.start(turn)
        self.fail(turn, "upstream_error", f"The upstream answered HTTP {error.status}.")
        return Response(self.flush(turn), media_type="text/event-stream")


class DropsToolSchemas(ResponsesFront):
    """drops_tool_schemas: tools reach the upstream with empty parameters and no description (GW-REQ-002)."""

    def parse_tool(self, tool: Json) -> Tool:
        return Tool(str(tool["name"]), None, {})


class DropsToolChoice(ResponsesFront):
    """drops_tool_choice: tool_choice never reaches the upstream (GW-REQ-003)."""

    def parse_request(self, body: Json) -> Request:
        return super().parse_request(_without(body, "tool_choice"))


class DropsParallelFlag(ResponsesFront):
    """drops_parallel_flag: parallel_tool_calls never reaches the upstream (GW-REQ-004)."""

    def parse_request(self, body: Json) -> Request:
        return super().parse_request(_without(body, "parallel_tool_calls"))


class DropsInstructions(ResponsesFront):
    """drops_instructions: instructions are not sent upstream as the system message (GW-REQ-005)."""

    def parse_request(self, body: Json) -> Request:
        return super().parse_request(_without(body, "instructions"))


class DropsToolResults(ResponsesFront):
    """drops_tool_results: function_call_output input items are not forwarded (GW-REQ-006)."""

    def parse_request(self, body: Json) -> Request:
        items = body.get("input")
        if isinstance(items, list):
            body = {**body, "input": [i for i in items if i.get("type") != "function_call_output"]}
        return super().parse_request(body)


class DropsMaxTokens(ResponsesFront):
    """drops_max_tokens: max_output_tokens is not forwarded as max_completion_tokens (GW-REQ-007)."""

    def parse_request(self, body: Json) -> Request:
        return super().parse_request(_without(body, "max_output_tokens"))


class FreshCallIds(ResponsesFront):
    """fresh_call_ids: every call gets a synthesized call_id instead of the upstream's id (GW-ID-001)."""

    def call_id(self, turn: Turn, upstream_id: str | None) -> str:
        return super().call_id(turn, None)


class LengthAsCompleted(ResponsesFront):
    """length_as_completed: finish_reason "length" becomes response.completed (GW-FAULT-004)."""

    def status_for(self, reason: FinishReason) -> tuple[str, str | None]:
        return ("completed", None) if reason == "length" else super().status_for(reason)


class MixedInterleavedArgs(ResponsesFront):
    """mixed_interleaved_args: every argument fragment goes to the most recently opened call, so interleaved
    calls mix their arguments (RSP-ARGS-004 on the broken JSON, EXP-002 on the arguments)."""

    def on_arguments(self, turn: Turn, key: int, fragment: str) -> None:
        super().on_arguments(turn, list(turn.calls)[-1], fragment)


class EmptyArgumentsPassthrough(ResponsesFront):
    """empty_arguments_passthrough: a call's "" arguments are forwarded unchanged instead of "{}"
    (RSP-ARGS-004)."""

    def final_arguments(self, arguments: str) -> str:
        return arguments


class NoSequenceNumbers(ResponsesFront):
    """no_sequence_numbers: events carry no sequence_number (RSP-SEQ-001)."""

    def encode_event(self, event: Json) -> bytes:
        return super().encode_event(_without(event, "sequence_number"))


class FirstNameFragment(ChatUpstream):
    """first_name_fragment: of a tool name split across chat deltas only the first fragment is kept
    (EXP-001). A defect of the Chat upstream reader, whatever the front."""

    def merge_name(self, name: str, fragment: str) -> str:
        return name or fragment


class DropsTextDeltas(ResponsesFront):
    """drops_text_deltas: of each message only the first text delta is forwarded, the rest of the text is lost
    (EXP-003)."""

    def on_text(self, turn: Turn, text: str) -> None:
        if turn.message is None:
            super().on_text(turn, text)


class NonStreamDropsCalls(ResponsesFront):
    """non_stream_drops_calls: the non-stream response keeps only message items, dropping the function calls
    (GW-EQ-001)."""

    def body(self, turn: Turn) -> Response:
        assert turn.result is not None
        output = [item for item in turn.result["output"] if item["type"] == "message"]
        return JSONResponse({**turn.result, "output": output})


class LastMessageOnly(ResponsesFront):
    """last_message_only: only the last input item reaches the upstream, so earlier user text (and the case
    marker in it) is lost in multi-turn requests (GW-REQ-001)."""

    def parse_history(self, items: list[Json]) -> list[Part]:
        return super().parse_history(items)[-1:]


class DiesOnLargeArguments(ResponsesFront):
    """dies_on_large_arguments: the process exits while answering the `large_arguments` scenario. Not a rule:
    the harness marks that case `error` with the stderr tail, restarts the gateway, and runs the other cases."""

    def parse_request(self, body: Json) -> Request:
        if "[callproof:scenario=large_arguments]" in json.dumps(body):
            print("dies_on_large_arguments: exiting mid-request", file=sys.stderr, flush=True)
            os._exit(70)
        return super().parse_request(body)


class FinalOutputRebuilt(ResponsesFront):
    """final_output_rebuilt: the terminal response's output is rebuilt from the items as they were added, so each
    still says status in_progress while its output_item.done said completed (RSP-ID-011)."""

    def terminate(self, turn: Turn, status: str, **fields: Any) -> None:
        for item in turn.items:
            if item.done is not None:
                item.done = {**item.done, "status": "in_progress"}
        super().terminate(turn, status, **fields)


class CompletedDespiteCutItems(ResponsesFront):
    """completed_despite_cut_items: the item the length limit cut ends incomplete, but the response ends with
    response.completed (RSP-LIFE-011)."""

    def terminate(self, turn: Turn, status: str, **fields: Any) -> None:
        if status == "incomplete":
            status, fields = "completed", {}
        super().terminate(turn, status, **fields)


class BareUsage(ResponsesFront):
    """bare_usage: usage carries only the three token counts, without input_tokens_details and
    output_tokens_details, which the OpenAI SDK's ResponseUsage requires (RSP-SCHEMA-001)."""

    def translate_usage(self, usage: Usage) -> Json:
        full = super().translate_usage(usage)
        return {key: full[key] for key in ("input_tokens", "output_tokens", "total_tokens")}


class EventLineHeartbeat(ResponsesFront):
    """event_line_heartbeat: a heartbeat written as a bare `event: ping` block without data before each write;
    openai-python fails to json-decode it (SSE-007)."""

    def flush(self, turn: Turn) -> bytes:
        return b"event: ping\n\n" + super().flush(turn)


class NoEventLines(ResponsesFront):
    """no_event_lines: events are written as `data:` lines only, without the `event:` line the OpenAI API sends
    (RSP-FRAME-005)."""

    def encode_event(self, event: Json) -> bytes:
        return b"".join(line + b"\n" for line in super().encode_event(event).split(b"\n")
                        if line and not line.startswith(b"event:")) + b"\n"


# -- the Chat Completions front ---------------------------------------------------------------------------------


class ChatBuffering(ChatFront):
    """chat_buffering: the Chat front reads the whole upstream stream before writing any chunk
    (GW-STREAM-001)."""

    def stream_events(self, request: Request, events: AsyncIterator[Event]) -> AsyncIterator[bytes]:
        return _all_at_once(super().stream_events(request, events))


class DoneAfterUpstreamError(ChatFront):
    """done_after_upstream_error: an upstream that fails or drops mid-stream ends the Chat stream with
    finish_reason "stop" and [DONE], as if it had finished (GW-FAULT-003)."""

    def fail(self, turn: ChatTurn, code: str, message: str) -> None:
        self.finish(turn, "stop")


class RepeatsCallIdEveryChunk(ChatFront):
    """repeats_call_id_every_chunk: every argument delta of a call repeats its id, type and name, as some
    providers do (CHAT-TC-003)."""

    def on_arguments(self, turn: ChatTurn, key: int, fragment: str) -> None:
        call = turn.calls[key]
        call.arguments += fragment
        self.chunk(turn, {"tool_calls": [{"index": call.index, "id": call.id, "type": "function",
                                          "function": {"name": call.name, "arguments": fragment}}]})


class OneBasedToolCallIndices(ChatFront):
    """one_based_tool_call_indices: tool calls take the indexes 1, 2, 3 instead of 0, 1, 2 (CHAT-TC-005)."""

    def next_index(self, turn: ChatTurn) -> int:
        return len(turn.calls) + 1


class NoDoneSentinel(ChatFront):
    """no_done_sentinel: the Chat stream ends after its finish chunk without `data: [DONE]`
    (CHAT-FRAME-001)."""

    def done_sentinel(self) -> bytes:
        return b""


class LengthAsStop(ChatFront):
    """length_as_stop: an upstream length cut becomes finish_reason "stop" at the Chat front (GW-FAULT-004,
    EXP-004)."""

    def finish_reason_for(self, turn: ChatTurn, reason: FinishReason) -> str:
        return super().finish_reason_for(turn, "stop" if reason == "length" else reason)


# -- the Anthropic Messages front -------------------------------------------------------------------------------


class MessageStopAfterUpstreamError(AnthropicFront):
    """message_stop_after_upstream_error: an upstream that fails or drops mid-stream ends the Anthropic stream with
    message_delta (end_turn) and message_stop, as if it had finished (GW-FAULT-003)."""

    def fail(self, turn: AnthropicTurn, code: str, message: str) -> None:
        self.finish(turn, "stop")


class AnthropicNoEventLines(AnthropicFront):
    """anthropic_no_event_lines: Anthropic events are written as `data:` lines only, without the `event:` line
    the Anthropic SDK dispatches on (ANT-FRAME-002)."""

    def encode_event(self, event: Json) -> bytes:
        return b"".join(line + b"\n" for line in super().encode_event(event).split(b"\n")
                        if line and not line.startswith(b"event:")) + b"\n"


class MaxTokensAsEndTurn(AnthropicFront):
    """max_tokens_as_end_turn: an upstream length cut becomes stop_reason "end_turn" at the Anthropic front
    (GW-FAULT-004)."""

    def stop_reason_for(self, turn: AnthropicTurn, reason: FinishReason) -> str:
        return super().stop_reason_for(turn, "stop" if reason == "length" else reason)


class UnstoppedBlocks(AnthropicFront):
    """unstopped_blocks: content blocks are never stopped; message_delta follows open blocks (ANT-BLOCK-003)."""

    def stop_block(self, turn: AnthropicTurn, block: Block) -> None:
        return None


class AnthropicErrorAsStream(AnthropicFront):
    """anthropic_error_as_stream: an upstream HTTP error becomes a 200 SSE stream of message_start and an `error`
    event at the Anthropic front (GW-FAULT-001)."""

    def error_response(self, request: Request, error: UpstreamHTTPError) -> Response:
        turn = self.new_turn(request)
        self.start(turn)
        self.fail(turn, "upstream_error", f"The upstream answered HTTP {error.status}.")
        return Response(self.flush(turn), media_type="text/event-stream")


DEFECTS: dict[str, type[Front[Any]] | type[Upstream] | type[Corruption]] = {
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
    "shared_state": SharedState,  # concurrency.py
    **ISOLATION_DEFECTS,  # a bug alone the isolation case must not blame, ids from the clock: isolation_gateways.py
    "one_at_a_time": OneAtATime,
    "non_stream_drops_calls": NonStreamDropsCalls,
    "drops_text_deltas": DropsTextDeltas,
    "last_message_only": LastMessageOnly,
    "dies_on_large_arguments": DiesOnLargeArguments,
    "final_output_rebuilt": FinalOutputRebuilt,
    "completed_despite_cut_items": CompletedDespiteCutItems,
    "bare_usage": BareUsage,
    "event_line_heartbeat": EventLineHeartbeat,
    "no_event_lines": NoEventLines,
    "chat_buffering": ChatBuffering,
    "crowded_once": CrowdedOnce,
    "crowded_buffering": CrowdedBuffering,
    "done_after_upstream_error": DoneAfterUpstreamError,
    "repeats_call_id_every_chunk": RepeatsCallIdEveryChunk,
    "one_based_tool_call_indices": OneBasedToolCallIndices,
    "no_done_sentinel": NoDoneSentinel,
    "length_as_stop": LengthAsStop,
    "message_stop_after_upstream_error": MessageStopAfterUpstreamError,
    "anthropic_no_event_lines": AnthropicNoEventLines,
    "max_tokens_as_end_turn": MaxTokensAsEndTurn,
    "unstopped_blocks": UnstoppedBlocks,
    "anthropic_error_as_stream": AnthropicErrorAsStream,
    **XML_DEFECTS,  # defects relative to --policy xml-tool-text, and converters wrong under it: xml_tool_text.py
    "runaway_stream": RunawayStream,  # caught by --max-events / --max-bytes: limits.py
    **REQUEST_DEFECTS,
    **STATEFUL_DEFECTS,  # previous_response_id, store, encrypted reasoning: stateful_gateways.py
    **LOOP_DEFECTS,
    **CANCEL_DEFECTS,  # what a gateway does after its client went away: cancel_gateways.py
    **EVIDENCE_DEFECTS,  # findings easy to misreport (GW-USAGE-001 names the request field): evidence_gateways.py
    **gateways_gaps.DEFECTS,
    **ws_gateways.DEFECTS,  # the Responses WebSocket front (--front-transport websocket): ws_gateways.py
    **LEAK_DEFECTS,  # an error path that echoes the upstream or the caller's key (GW-FAULT-005): leak_gateways.py
    **EXPOSURE_DEFECTS,  # an error that exposes a stack trace and install paths (GW-FAULT-006): exposure_gateways.py
    **SEED_DEFECTS,  # one bad call costing the valid ones (EXP-001): seed_gateways.py
    **HISTORY_DEFECTS,  # a history translated wrongly toward a Chat upstream (GW-REQ-006): history_gateways.py
    **ITEM_DEFECTS,  # structured outputs, tool flags, custom calls, refusals, reasoning, MCP items: item_gateways.py
    **ITEM_STREAM_DEFECTS,  # Responses pass-through corrupting one streamed item field (RSP-ITEM-*): item_streams.py
    **SCHEMA_DEFECTS,  # tool schemas rewritten on the way upstream, by meaning or not (GW-REQ-002): schema_gateways.py
    **CUT_DEFECTS,  # an upstream disconnect relayed as a bare cut, no error event (lifecycle rules): cut_gateways.py
    **EDGE_DEFECTS,  # an HTTP 200 with an empty body, the upstream read (docs/spec/verdicts.md §2): edge_gateways.py
    **ARGS_DEFECTS,  # a relay changing the bytes of arguments that are not JSON (GW-ARGS-001): args_gateways.py
    # Chat streams as servers send them (docs/spec/verdicts.md §11, §12): chat_stream_gateways.py
    **CHAT_STREAM_DEFECTS,
}


def gateway_app(upstream: str, dialect: str = "chat", defect: str | None = None) -> ASGIApp:
    """The reference gateway of `dialect` with `defect` (None: none): its class replaces the front of its dialect,
    or the upstream."""
    broken = DEFECTS[defect] if defect else None
    if broken is not None and issubclass(broken, Corruption):  # a pass-through, not the reference gateway
        return item_stream_app(upstream, defect)
    if broken is OneAtATime:
        return serialised(create_app(upstream, dialect=dialect))
    if broken is not None and issubclass(broken, WebSocketFront):
        return create_app(upstream, dialect=dialect, websocket=broken)
    if broken is not None and issubclass(broken, Upstream):
        return create_app(upstream, dialect=dialect, upstream_class=broken)
    return create_app(upstream, dialect=dialect, fronts=[broken] if broken is not None else [])


def main(argv: Sequence[str] | None = None) -> int:
    command = parser()
    command.add_argument("--defect", choices=sorted(DEFECTS), help="the one defect to inject (default: none)")
    args = command.parse_args(argv)
    serve(gateway_app(args.upstream, args.upstream_dialect, args.defect), args.host, args.port)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
