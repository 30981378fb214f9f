"""The scenario model and its loader: dialect-neutral scripted model turns and sequences of them, the `match` block
that selects one, and the `[callproof:...]` markers a request carries to select one and tie it to its case."""

from __future__ import annotations

from ._faults import (
    FAULTS,
    FRAMING_STYLES,
    FaultKind,
    FaultParam,
    FaultSpec,
    ParamValue,
    cut_kinds,
    fault_param,
    framing_variant,
    http_error_fault,
    is_framing,
    raw_http_error,
)
from ._legs import Leg, Requires
from ._loader import bundled_scenarios, load_scenarios, parse_scenario_file, with_bundled
from ._markers import case_marker, markers, scenario_marker, strip_markers
from ._match import JsonPredicate, Match, RequestFacts, TextMatch, request_facts, strings_in
from ._scenario import (
    ChatEnding,
    Chunked,
    Expect,
    Fault,
    FunctionCall,
    Output,
    RawFrame,
    Scenario,
    ScenarioError,
    Step,
    Timing,
    Usage,
)

__all__ = [
    "ChatEnding",
    "Chunked",
    "Expect",
    "FAULTS",
    "FRAMING_STYLES",
    "Fault",
    "FaultKind",
    "FaultParam",
    "FaultSpec",
    "FunctionCall",
    "JsonPredicate",
    "Leg",
    "Match",
    "Output",
    "ParamValue",
    "RawFrame",
    "RequestFacts",
    "Requires",
    "Scenario",
    "ScenarioError",
    "Step",
    "TextMatch",
    "Timing",
    "Usage",
    "bundled_scenarios",
    "case_marker",
    "cut_kinds",
    "fault_param",
    "framing_variant",
    "http_error_fault",
    "is_framing",
    "load_scenarios",
    "markers",
    "parse_scenario_file",
    "raw_http_error",
    "request_facts",
    "scenario_marker",
    "strings_in",
    "strip_markers",
    "with_bundled",
]
