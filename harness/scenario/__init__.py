"""The scenario model and loader, the request the harness sends for a scenario, an HTTP exchange as a value,
and the outcome (text, calls, status) read from a stream, a body or an adapter."""

from __future__ import annotations

from ._exchange import Chunk, Exchange
from ._match import JsonPredicate, Match, RequestFacts, TextMatch, request_facts, strip_markers
from ._outcome import (
    Call,
    Result,
    Status,
    result_of_adapter,
    status_matches,
)
from ._request import ANTHROPIC_MAX_TOKENS, DEFAULT_MODEL, front_request, marked_input, markers, new_case_tag
from ._scenario import (
    FRAMING_STYLES,
    ChatEnding,
    Chunked,
    Expect,
    Fault,
    FunctionCall,
    Leg,
    Output,
    RawFrame,
    Requires,
    Scenario,
    ScenarioError,
    Step,
    Timing,
    Usage,
    bundled_scenarios,
    load_scenarios,
    parse_scenario_file,
)
from ._wire import result_of_body, result_of_events

__all__ = [
    "ANTHROPIC_MAX_TOKENS",
    "FRAMING_STYLES",
    "Call",
    "ChatEnding",
    "Chunk",
    "Chunked",
    "DEFAULT_MODEL",
    "Exchange",
    "Expect",
    "Fault",
    "FunctionCall",
    "JsonPredicate",
    "Leg",
    "Match",
    "Output",
    "RawFrame",
    "RequestFacts",
    "Requires",
    "Result",
    "Scenario",
    "ScenarioError",
    "Status",
    "Step",
    "TextMatch",
    "Timing",
    "Usage",
    "bundled_scenarios",
    "front_request",
    "load_scenarios",
    "marked_input",
    "markers",
    "new_case_tag",
    "parse_scenario_file",
    "request_facts",
    "result_of_adapter",
    "result_of_body",
    "result_of_events",
    "status_matches",
    "strip_markers",
]
