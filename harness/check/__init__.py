"""Wire checking: the incremental SSE parser, schema loading, one state machine per front, capture reading, the
WebSocket transcript checker and the text output of `callproof check`."""

from __future__ import annotations

from ._anthropic import BODY_RULES as _ANTHROPIC_BODY_RULES
from ._capture import (
    capture_kind,
    capture_text,
    check_capture,
    detect_front,
    is_transcript,
    nul_offset,
    payload_dialect,
)
from ._chat import BODY_RULES as _CHAT_BODY_RULES
from ._check import (
    CHECKERS,
    CheckerRow,
    CheckReport,
    StreamChecker,
    Transport,
    check_body,
    check_bytes,
    check_events,
    transport_rules,
)
from ._format import catalogue_markdown, format_report, rule_markdown, summary_line
from ._front import Sink, short, shown
from ._relay_caveat import RELAY_CAVEAT, relay_caveat
from ._responses import BODY_RULES as _RESPONSES_BODY_RULES
from ._responses_reassembly import HANDLED_EVENTS as REASSEMBLED_EVENTS
from ._schemas import json_path, schema_store
from ._sse import FramingIssue, SSEEvent, SSEParser, parse_sse
from ._sse_types import event_objects
from ._transcript import ALREADY_IN_FLIGHT, TranscriptChecker, check_websocket_messages, check_websocket_transcript
from ._unicode import escape_surrogates, loads_json

#: The rules that judge a non-stream body, of every front.
BODY_RULES = _RESPONSES_BODY_RULES | _CHAT_BODY_RULES | _ANTHROPIC_BODY_RULES

__all__ = [
    "RELAY_CAVEAT",
    "ALREADY_IN_FLIGHT",
    "BODY_RULES",
    "CHECKERS",
    "CheckReport",
    "CheckerRow",
    "FramingIssue",
    "REASSEMBLED_EVENTS",
    "SSEEvent",
    "SSEParser",
    "Sink",
    "StreamChecker",
    "TranscriptChecker",
    "Transport",
    "capture_kind",
    "capture_text",
    "catalogue_markdown",
    "check_body",
    "check_bytes",
    "check_capture",
    "check_events",
    "check_websocket_messages",
    "check_websocket_transcript",
    "detect_front",
    "is_transcript",
    "payload_dialect",
    "escape_surrogates",
    "event_objects",
    "format_report",
    "json_path",
    "loads_json",
    "nul_offset",
    "parse_sse",
    "schema_store",
    "relay_caveat",
    "rule_markdown",
    "short",
    "shown",
    "summary_line",
    "transport_rules",
]
