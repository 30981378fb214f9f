"""A gateway's rejection of a request its upstream cannot take (docs/spec/contracts.md §7.12, docs/spec/items.md
§1, §2): where a scenario allows it (`expect.may_reject`), a 4xx in the front's error shape, answered without
calling the upstream, whose message names what was refused, is a correct answer, judged in the scenario's
`translation` case by the rule of what the request holds (`refusable`): a tool without a name GW-REQ-013 (the
message names the missing name), built-in tools GW-REQ-008 (their types), a custom tool
GW-REQ-012 (its name or "custom"; only toward an upstream without custom tools, under `--policy
custom-tools=either`, the default, or `refuse`), a json_schema structured output GW-REQ-010 (the format). The
scenario's other cases have no stream to judge and are skipped, saying why.

A tool without a name may also be forwarded as it is: every real upstream refuses it with a 400 (the mock does, in
each dialect's shape), and the front passes that refusal on, judged by the same test (`check_nameless_relay`,
docs/spec/verdicts.md §16).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from callproof.harness._types import JSONValue
from callproof.harness.catalogue import Evidence
from callproof.harness.check import short
from callproof.harness.scenario import Scenario

from ._custom_tools import custom_tools
from ._findings import Findings
from ._gateway import ERROR_SHAPES, FrontAnswer, error_shape_problem
from ._policy import custom_tool_expectation
from ._request_items import nameless_tools, text_format, upstream_nameless
from ._request_shapes import builtin_tools

__all__ = [
    "Refusable", "builtin_tool_types", "check_nameless_relay", "check_rejection", "is_rejection", "refusable",
    "rejected_reason", "rejection_problem",
]


@dataclass(frozen=True, slots=True)
class Refusable:
    """What a rejection of a scenario's request refuses: the rule judging it, what it is (for messages) and the
    words one of which its message must hold."""

    rule: str
    what: str
    words: tuple[str, ...]


def builtin_tool_types(scenario: Scenario) -> list[str]:
    """The types of the scenario request's built-in tools (any tool that is not a function tool), in order."""
    types = [str(t.get("type")) for t in builtin_tools(scenario.request)]
    return list(dict.fromkeys(types))


def refusable(scenario: Scenario) -> Refusable:
    """What a rejection of the scenario's request is judged as: a nameless tool first (it must be refused), then
    built-in tools other than custom ones, custom tools, a json_schema structured output."""
    request = scenario.request
    if nameless_tools(request):
        return Refusable("GW-REQ-013", "a tool without a name", ("name",))
    types = builtin_tool_types(scenario)
    names = tuple(str(t["name"]) for t in custom_tools(request))
    if names and types == ["custom"]:
        return Refusable("GW-REQ-012", "custom tools", (*names, "custom"))
    if not types and text_format(request) is not None:
        return Refusable("GW-REQ-010", "a json_schema structured output",
                         ("format", "response_format", "output_config", "json_schema"))
    return Refusable("GW-REQ-008", "built-in tools", tuple(types))


def is_rejection(answer: FrontAnswer, scenario: Scenario, *, upstream_called: bool) -> bool:
    """Whether `answer` is the front refusing a `may_reject` scenario: an HTTP error (not a timeout) sent without
    a request to the upstream. Valid or not: `rejection_problem` says what it lacks. An HTTP error after calling
    the upstream is no rejection (the upstream's answer was passed on), judged as any other answer."""
    status = answer.exchange.status or 0
    return (bool(scenario.expect.may_reject) and status >= 400 and not answer.exchange.timed_out
            and not upstream_called)


def rejection_problem(answer: FrontAnswer, scenario: Scenario) -> tuple[str, Evidence] | None:
    """What a rejection lacks (a 4xx status, the front's error shape, a message naming what it refuses), with the
    evidence; None for a valid rejection."""
    status = answer.exchange.status or 0
    if not 400 <= status < 500:
        return (f"HTTP {status} is not a 4xx (a request the upstream cannot take is the caller's fault)",
                Evidence(path="HTTP status", expected="4xx", actual=status))
    body = answer.exchange.json()
    shape = error_shape_problem(answer.front, body)
    if shape is not None:
        return (f"its body is {shape}", Evidence(path="$", expected=ERROR_SHAPES[answer.front], actual=short(body)))
    assert isinstance(body, Mapping)
    message = str(body["error"]["message"])
    refused = refusable(scenario)
    if not any(word in message for word in refused.words):
        return (f"its message {short(message)} names none of {list(refused.words)} ({refused.what})",
                Evidence(path="$.error.message", expected=f"a message naming {' / '.join(refused.words)}",
                         actual=short(message)))
    return None


def _needless(refused: Refusable, upstream: str, policies: Mapping[str, str]) -> str | None:
    """Why refusing is wrong here: custom tools toward a Responses upstream (it has them), or under `convert`."""
    if refused.rule != "GW-REQ-012":
        return None
    expected = custom_tool_expectation(upstream, policies)
    if expected == "carry":
        return "a Responses upstream has custom tools: the gateway forwards them as custom tools"
    if expected == "convert":
        return ("the run declares --policy custom-tools=convert: the gateway offers a custom tool as a function "
                "tool with one string parameter instead of refusing it")
    return None


def check_rejection(findings: Findings, scenario: Scenario, answer: FrontAnswer, *, upstream: str = "chat",
                    policies: Mapping[str, str] | None = None) -> None:
    """The rule of what the request holds (`refusable`) on a rejection (`is_rejection`): passes for a 4xx in the
    front's error shape naming what it refuses, where refusing is allowed; fails naming what is missing."""
    refused = refusable(scenario)
    findings.check(refused.rule)
    needless = _needless(refused, upstream, policies or {})
    if needless is not None:
        findings.fail(refused.rule, f"the front refused the request with HTTP {answer.exchange.status}, but "
                      f"{needless}", Evidence(path="HTTP status", expected="the request forwarded upstream",
                                              actual=answer.exchange.status))
        return
    problem = rejection_problem(answer, scenario)
    if problem is None:
        return
    why, evidence = problem
    findings.fail(refused.rule, f"the front answered HTTP {answer.exchange.status} without calling its upstream, "
                  f"but {why}; a gateway that refuses {refused.what} its upstream cannot take answers a 4xx in the "
                  "front's error shape whose message names them", evidence)


def rejected_reason(answer: FrontAnswer, scenario: Scenario) -> str:
    """Why a case other than `translation` is skipped after a valid rejection."""
    return (f"the gateway rejected the request with HTTP {answer.exchange.status}, as the scenario allows; judged "
            f"by {refusable(scenario).rule} in {scenario.id}::translation")


def check_nameless_relay(findings: Findings, dialect: str, front: Mapping[str, Any], body: JSONValue,
                         answer: FrontAnswer, scenario: Scenario) -> None:
    """GW-REQ-013 where the front's tools without a name reached the `dialect` upstream without one: the upstream
    refuses such a request (HTTP 400, every real one and the mock alike), and the front must pass that on as it
    would refuse the request itself: a 4xx in the front's error shape whose message names the missing name. A
    success (the refusal swallowed, or an answer from an upstream that took it), a 5xx or a vague message fails.
    A tool dropped or given a name on the way is judged on the request (`_request_items`)."""
    indexes = nameless_tools(front)
    if not indexes or not isinstance(body, Mapping) or upstream_nameless(dialect, body)[0] < len(indexes):
        return
    findings.check("GW-REQ-013")
    problem = rejection_problem(answer, scenario)
    if problem is None:
        return
    why, evidence = problem
    findings.fail("GW-REQ-013", f"the front request's tools{indexes} have no name and reached the {dialect} upstream "
                  f"without one, which refuses such a request (HTTP 400); the front answered HTTP "
                  f"{answer.exchange.status}, but {why}; pass the upstream's 4xx on in the front's error shape (its "
                  "message names the missing name), or refuse the request before calling the upstream", evidence)
