"""Judging one case: the expected outcome, request translation, ids, faults, streaming, equivalence and
isolation of a gateway, the client rules, and the evidence a failure carries."""

from __future__ import annotations

from ._adapter import AdapterRun, protocol_problem
from ._arguments import check_arguments, has_malformed_arguments
from ._assistant_turns import check_text_with_calls
from ._beside_malformed import check_beside_malformed, has_calls_beside_malformed
from ._cancel import CANCEL_RULES, UpstreamAttempt, check_cancellation
from ._case import CaseOutcome, CaseResult, CaseSpec
from ._client_rules import check_client, check_client_isolation, framing_variants, responses_call_item_ids
from ._client_ws import WebSocketTurn, check_client_websocket
from ._endings import as_filtered
from ._evidence import excerpts, timeline
from ._expected import expected_calls, expected_outcome, expects_success
from ._exposure import check_error_exposure
from ._findings import Findings
from ._gateway import (
    FrontAnswer,
    UpstreamView,
    check_ending,
    check_equivalence,
    check_faults,
    check_ids,
    check_isolation,
    has_fault_rules,
    read_answer,
)
from ._incomplete_error import reported_incomplete_as_error
from ._inherited import INHERITED_NOTE, attribute_inherited
from ._issued_ids import IdsOfAnswer, IssuedId, answer_ids, check_unique_ids, given_ids
from ._item_wire import ITEM_READERS
from ._items import ITEM_TYPES, carried_expect, check_items, front_cannot_carry, has_item_rules, items_skipped
from ._judgeable import (
    NO_RESULT,
    NO_STREAM,
    adapter_problem,
    answer_problem,
    dialect_mismatch,
    spoken_dialect,
    what_arrived,
)
from ._leaks import check_error_leaks
from ._loop_rules import (
    LOOP_RULES,
    LoopCallResult,
    SequenceRequest,
    check_client_loop,
    check_client_retries,
    check_gateway_loop,
    history_problems,
)
from ._policy import XML_TAG, XmlCall, check_xml_policy, policy_expect, xml_tool_calls
from ._rejection import (
    check_nameless_relay,
    check_rejection,
    is_rejection,
    refusable,
    rejected_reason,
    rejection_problem,
)
from ._request_items import check_request_items
from ._request_shapes import BUILTIN_TOOL_READERS
from ._settled import settled_expect
from ._socket import SOCKET_RULES, SocketMessage, TurnLabel, check_socket, in_turn, merge_results
from ._stateful_reasoning import check_encrypted_reasoning
from ._stateful_rules import (
    REFUSAL_CODES,
    STATEFUL_POLICIES,
    STATEFUL_TAG,
    EarlierTurn,
    Refusal,
    check_continuation,
    check_store,
    entries_of,
    responses_output,
)
from ._streaming import (
    DEFAULT_SLACK,
    STREAM_PLAYS,
    check_streaming,
    content_marks,
    content_times,
    forwarding_latency,
    waited,
)
from ._translation import HISTORY_CHECKS, check_translation
from ._upstream_fault import ATTRIBUTABLE, UPSTREAM_SECTION, attribute_to_upstream, upstream_note
from ._usage import UNREPORTED_USAGE, check_usage, front_usage, has_usage_rules
from ._websocket_front import WS_RULES, check_ws_failure, check_ws_in_flight, error_code

__all__ = [
    "ATTRIBUTABLE",
    "BUILTIN_TOOL_READERS",
    "INHERITED_NOTE",
    "UPSTREAM_SECTION",
    "UNREPORTED_USAGE",
    "CANCEL_RULES",
    "DEFAULT_SLACK",
    "HISTORY_CHECKS",
    "ITEM_READERS",
    "ITEM_TYPES",
    "LOOP_RULES",
    "NO_RESULT",
    "NO_STREAM",
    "REFUSAL_CODES",
    "STATEFUL_POLICIES",
    "SOCKET_RULES",
    "STREAM_PLAYS",
    "STATEFUL_TAG",
    "WS_RULES",
    "XML_TAG",
    "AdapterRun",
    "CaseOutcome",
    "CaseResult",
    "CaseSpec",
    "EarlierTurn",
    "Findings",
    "FrontAnswer",
    "IdsOfAnswer",
    "IssuedId",
    "LoopCallResult",
    "Refusal",
    "SequenceRequest",
    "SocketMessage",
    "TurnLabel",
    "UpstreamAttempt",
    "UpstreamView",
    "WebSocketTurn",
    "XmlCall",
    "adapter_problem",
    "answer_ids",
    "answer_problem",
    "as_filtered",
    "attribute_inherited",
    "attribute_to_upstream",
    "check_arguments",
    "check_beside_malformed",
    "check_cancellation",
    "check_client",
    "check_client_isolation",
    "check_client_loop",
    "check_client_retries",
    "check_client_websocket",
    "check_continuation",
    "check_encrypted_reasoning",
    "check_ending",
    "check_equivalence",
    "check_error_exposure",
    "check_error_leaks",
    "check_faults",
    "check_gateway_loop",
    "check_ids",
    "carried_expect",
    "check_items",
    "check_isolation",
    "check_nameless_relay",
    "check_rejection",
    "check_socket",
    "check_request_items",
    "check_store",
    "check_streaming",
    "check_text_with_calls",
    "check_translation",
    "check_unique_ids",
    "check_usage",
    "check_ws_failure",
    "check_ws_in_flight",
    "check_xml_policy",
    "content_marks",
    "content_times",
    "dialect_mismatch",
    "entries_of",
    "error_code",
    "excerpts",
    "expected_calls",
    "expected_outcome",
    "given_ids",
    "expects_success",
    "forwarding_latency",
    "framing_variants",
    "front_usage",
    "has_calls_beside_malformed",
    "has_fault_rules",
    "front_cannot_carry",
    "has_item_rules",
    "items_skipped",
    "merge_results",
    "has_malformed_arguments",
    "has_usage_rules",
    "history_problems",
    "in_turn",
    "is_rejection",
    "policy_expect",
    "protocol_problem",
    "read_answer",
    "refusable",
    "rejected_reason",
    "rejection_problem",
    "reported_incomplete_as_error",
    "responses_call_item_ids",
    "responses_output",
    "settled_expect",
    "spoken_dialect",
    "timeline",
    "upstream_note",
    "waited",
    "what_arrived",
    "xml_tool_calls",
]
