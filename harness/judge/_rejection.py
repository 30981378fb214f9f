"""A gateway's rejection of a request its upstream cannot take (docs/spec/contracts.md §7.12): where a scenario
allows it (`expect.may_reject`), a 4xx in the front's error shape whose message names the offending built-in tool
types, answered without calling the upstream, is a correct answer, judged by GW-REQ-008 in the scenario's
`translation` case; the scenario's other cases have no stream to judge and are skipped, saying why.
"""

from __future__ import annotations

from collections.abc import Mapping

from callproof.harness.catalogue import Evidence
from callproof.harness.check import short
from callproof.harness.scenario import Scenario

from ._findings import Findings
from ._gateway import ERROR_SHAPES, FrontAnswer, error_shape_problem
from ._request_shapes import builtin_tools

__all__ = ["builtin_tool_types", "check_rejection", "is_rejection", "rejected_reason", "rejection_problem"]


def builtin_tool_types(scenario: Scenario) -> list[str]:
    """The types of the scenario request's built-in tools (any tool that is not a function tool), in order."""
    types = [str(t.get("type")) for t in builtin_tools(scenario.request)]
    return list(dict.fromkeys(types))


def is_rejection(answer: FrontAnswer, scenario: Scenario, *, upstream_called: bool) -> bool:
    """Whether `answer` is the front refusing a `may_reject` scenario: an HTTP error (not a timeout) sent without
    a request to the upstream. Valid or not: `rejection_problem` says what it lacks. An HTTP error after calling
    the upstream is no rejection (the upstream's answer was passed on), judged as any other answer."""
    status = answer.exchange.status or 0
    return (bool(scenario.expect.may_reject) and status >= 400 and not answer.exchange.timed_out
            and not upstream_called)


def rejection_problem(answer: FrontAnswer, scenario: Scenario) -> tuple[str, Evidence] | None:
    """What a rejection lacks (a 4xx status, the front's error shape, a message naming a built-in tool type of
    the request), with the evidence; None for a valid rejection."""
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
    types = builtin_tool_types(scenario)
    if not any(kind in message for kind in types):
        return (f"its message {short(message)} names none of the request's built-in tool types {types}",
                Evidence(path="$.error.message", expected=f"a message naming {' / '.join(types)}",
                         actual=short(message)))
    return None


def check_rejection(findings: Findings, scenario: Scenario, answer: FrontAnswer) -> None:
    """GW-REQ-008 on a rejection (`is_rejection`): passes for a 4xx in the front's error shape naming a built-in
    tool type; fails naming what is missing."""
    findings.check("GW-REQ-008")
    problem = rejection_problem(answer, scenario)
    if problem is None:
        return
    why, evidence = problem
    findings.fail("GW-REQ-008", f"the front answered HTTP {answer.exchange.status} without calling its upstream, "
                  f"but {why}; a gateway that refuses built-in tools its upstream cannot take answers a 4xx in the "
                  f"front's error shape whose message names them", evidence)


def rejected_reason(answer: FrontAnswer, scenario: Scenario) -> str:
    """Why a case other than `translation` is skipped after a valid rejection."""
    return (f"the gateway rejected the request with HTTP {answer.exchange.status}, as the scenario allows; judged "
            f"by GW-REQ-008 in {scenario.id}::translation")
