"""Responses -> Responses pass-through gateways that corrupt one streamed item field (RSP-ITEM-001..009,
docs/spec/responses.md §2.6): every event of the upstream's stream is forwarded as it arrives, byte for byte, except
the ones the defect changes, drops or adds (sequence numbers renumbered from there on). Non-stream bodies and
errors pass unchanged.

    python -m tests.fakes.item_streams --upstream http://127.0.0.1:PORT/v1 --port N --defect custom_input_done_differs

`DEFECTS` (listed in gateways.py's `DEFECTS` too, so the mutation table launches them as `tests.fakes.gateways
--defect NAME`) maps each defect to its corruption; each class's docstring names the rule that catches it.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import AsyncIterator, Sequence
from typing import Any

import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from tests.fakes import tls

__all__ = ["DEFECTS", "ITEM_STREAM_DEFECTS", "Corruption", "Renumbered", "create_app", "main"]

_HOP = {"content-length", "transfer-encoding", "connection", "content-encoding"}
Event = dict[str, Any]


class Corruption:
    """The base: changes nothing. A subclass rewrites one event into zero or more events (state per response)."""

    def __init__(self) -> None:
        self.seen: dict[str, int] = {}

    def count(self, etype: str) -> int:
        """How many events of `etype` came before this one (0 for the first)."""
        n = self.seen.get(etype, 0)
        self.seen[etype] = n + 1
        return n

    def rewrite(self, event: Event) -> list[Event]:
        return [event]


class _ChangeDone(Corruption):
    etype = ""
    key = ""

    def rewrite(self, event: Event) -> list[Event]:
        if event.get("type") == self.etype and isinstance(event.get(self.key), str):
            event[self.key] = _mangled(event[self.key])
        return [event]


def _mangled(text: str) -> str:
    """`text` with its first character dropped, or "x" for an empty text: a change of one byte."""
    return text[1:] if text else "x"


class CustomInputDoneDiffers(_ChangeDone):
    """custom_input_done_differs: custom_tool_call_input.done's input loses its first byte; the deltas and the item
    keep it (RSP-ITEM-001)."""

    etype, key = "response.custom_tool_call_input.done", "input"


class ShellCommandDoneDiffers(_ChangeDone):
    """shell_command_done_differs: a shell_call_command.done's command loses its first byte (RSP-ITEM-003)."""

    etype, key = "response.shell_call_command.done", "command"


class ShellOutputDoneDiffers(Corruption):
    """shell_output_done_differs: a shell_call_output_content.done's first stdout loses its first byte; the deltas and
    the shell_call_output item keep it (RSP-ITEM-004)."""

    def rewrite(self, event: Event) -> list[Event]:
        output = event.get("output") if event.get("type") == "response.shell_call_output_content.done" else None
        if isinstance(output, list) and output and isinstance(output[0], dict) and "stdout" in output[0]:
            output[0]["stdout"] = _mangled(str(output[0]["stdout"]))
        return [event]


class ReasoningTextDoneDiffers(_ChangeDone):
    """reasoning_text_done_differs: reasoning_text.done's text loses its first byte (RSP-ITEM-005)."""

    etype, key = "response.reasoning_text.done", "text"


class SummaryTextDiffers(_ChangeDone):
    """summary_text_differs: a reasoning_summary_text.done's text loses its first byte; the deltas, the part done
    and the item keep it (RSP-ITEM-006)."""

    etype, key = "response.reasoning_summary_text.done", "text"


class CodeDoneDiffers(_ChangeDone):
    """code_done_differs: code_interpreter_call_code.done's code loses its first byte (RSP-ITEM-007)."""

    etype, key = "response.code_interpreter_call_code.done", "code"


class McpArgsDroppedDelta(Corruption):
    """mcp_args_dropped_delta: the first mcp_call_arguments.delta of the response is lost; done and item keep the
    whole arguments (RSP-ITEM-002)."""

    def rewrite(self, event: Event) -> list[Event]:
        if event.get("type") == "response.mcp_call_arguments.delta" and self.count("mcp_delta") == 0:
            return []
        return [event]


class AnnotationIndexSkipped(Corruption):
    """annotation_index_skipped: the annotations are numbered from 1 instead of 0 (RSP-ITEM-008)."""

    def rewrite(self, event: Event) -> list[Event]:
        if event.get("type") == "response.output_text.annotation.added" and isinstance(event.get("annotation_index"),
                                                                                       int):
            event["annotation_index"] += 1
        return [event]


class DeltaAfterDone(Corruption):
    """delta_after_done: an empty custom_tool_call_input.delta follows the call's input done event (RSP-ITEM-009;
    the joined input is unchanged)."""

    def rewrite(self, event: Event) -> list[Event]:
        if event.get("type") != "response.custom_tool_call_input.done":
            return [event]
        late = {"type": "response.custom_tool_call_input.delta", "sequence_number": event.get("sequence_number"),
                "item_id": event.get("item_id"), "output_index": event.get("output_index"), "delta": ""}
        return [event, late]


class SummaryPartNotAdded(Corruption):
    """summary_part_not_added: the reasoning_summary_part.added events are dropped; the summary text streams into a
    part never opened (RSP-ITEM-009)."""

    def rewrite(self, event: Event) -> list[Event]:
        return [] if event.get("type") == "response.reasoning_summary_part.added" else [event]


DEFECTS: dict[str, type[Corruption]] = {
    "custom_input_done_differs": CustomInputDoneDiffers,
    "mcp_args_dropped_delta": McpArgsDroppedDelta,
    "shell_command_done_differs": ShellCommandDoneDiffers,
    "shell_output_done_differs": ShellOutputDoneDiffers,
    "reasoning_text_done_differs": ReasoningTextDoneDiffers,
    "summary_text_differs": SummaryTextDiffers,
    "code_done_differs": CodeDoneDiffers,
    "annotation_index_skipped": AnnotationIndexSkipped,
    "delta_after_done": DeltaAfterDone,
    "summary_part_not_added": SummaryPartNotAdded,
}
#: The same, under the name gateways.py imports.
ITEM_STREAM_DEFECTS = DEFECTS


class Renumbered:
    """Parses the upstream's SSE bytes into events, rewrites each, and renders them with consecutive
    sequence_numbers: an event left as it was, at its own number, keeps its bytes."""

    def __init__(self, corruption: Corruption) -> None:
        self._corruption = corruption
        self._buffer = b""
        self._next = 0

    def feed(self, chunk: bytes) -> bytes:
        self._buffer += chunk
        out: list[bytes] = []
        while b"\n\n" in self._buffer:
            frame, self._buffer = self._buffer.split(b"\n\n", 1)
            out.append(self._frame(frame + b"\n\n"))
        return b"".join(out)

    def rest(self) -> bytes:
        rest, self._buffer = self._buffer, b""
        return rest

    def _frame(self, frame: bytes) -> bytes:
        data = b"".join(line[5:].lstrip(b" ") for line in frame.split(b"\n") if line.startswith(b"data:"))
        try:
            event = json.loads(data)
        except ValueError:
            return frame  # a comment, a keep-alive or [DONE]: as it came
        if not isinstance(event, dict):
            return frame
        original = json.dumps(event, sort_keys=True)
        rendered: list[bytes] = []
        for out in self._corruption.rewrite(event):
            seq = out.get("sequence_number")
            if isinstance(seq, int):
                out["sequence_number"] = self._next
                self._next += 1
            if seq == out.get("sequence_number") and json.dumps(out, sort_keys=True) == original:
                rendered.append(frame)
            else:
                body = json.dumps(out, ensure_ascii=False, separators=(",", ":"))
                rendered.append(f"event: {out.get('type')}\ndata: {body}\n\n".encode())
        return b"".join(rendered)


def create_app(upstream: str, defect: str | None = None) -> Starlette:
    corruption = DEFECTS[defect] if defect else Corruption

    async def forward(request: Request) -> Response:
        client = httpx.AsyncClient(timeout=httpx.Timeout(60.0, connect=5.0), verify=tls())  # one a request
        outgoing = client.build_request("POST", f"{upstream}/responses", content=await request.body(),
                                        headers={"content-type": "application/json"})
        answer = await client.send(outgoing, stream=True)
        headers = {k: v for k, v in answer.headers.items() if k.lower() not in _HOP}
        streaming = answer.headers.get("content-type", "").startswith("text/event-stream")
        renumbered = Renumbered(corruption())

        async def body() -> AsyncIterator[bytes]:
            try:
                async for chunk in answer.aiter_raw():
                    out = renumbered.feed(chunk) if streaming else chunk
                    if out:
                        yield out
                if streaming and (rest := renumbered.rest()):
                    yield rest
            except httpx.HTTPError:
                return  # the upstream dropped: so does the front
            finally:
                await answer.aclose()
                await client.aclose()

        return StreamingResponse(body(), status_code=answer.status_code, headers=headers)

    return Starlette(routes=[Route("/v1/responses", forward, methods=["POST"])])


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--upstream", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--defect", choices=sorted(DEFECTS))
    args = parser.parse_args(argv)
    uvicorn.run(create_app(args.upstream, args.defect), host="127.0.0.1", port=args.port, log_level="warning")
    return 0


if __name__ == "__main__":
    sys.exit(main())
