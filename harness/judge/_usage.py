"""GW-USAGE-001 (docs/spec/contracts.md §7.8): the token usage the upstream reported reaches the front, in the
front's shape: Responses `response.usage` (input_tokens, output_tokens, total_tokens,
input_tokens_details.cached_tokens), Chat `usage` (prompt_tokens, completion_tokens, total_tokens,
prompt_tokens_details.cached_tokens), Anthropic message_start / message_delta `usage` (input_tokens without the
cached ones, cache_read_input_tokens, output_tokens: the last value of each field counts)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from callproof.harness._types import Dialect, JSONValue
from callproof.harness.catalogue import Evidence
from callproof.harness.check import shown
from callproof.harness.dialects import DIALECTS, flat
from callproof.harness.scenario import Scenario

from ._expected import expects_success
from ._findings import Findings
from ._gateway import FrontAnswer

__all__ = ["UNREPORTED_USAGE", "check_usage", "front_usage", "has_usage_rules", "wanted_usage"]

#: Why CLI-009 is not judged in a client case whose scenario scripts usage when the adapter reports none (the
#: case's details say so under `not_judged`, rather than the rule showing as passed).
UNREPORTED_USAGE = ("the stream carried usage but the adapter reported none (`usage` absent or null): CLI-009 judges "
                    "an adapter's usage only when it reports one (docs/adapters.md)")



def has_usage_rules(scenario: Scenario) -> bool:
    """Usage is judged where the scenario scripts some and the turn succeeds (a failed one reports none)."""
    usage = scenario.usage
    return bool(usage.input_tokens or usage.output_tokens) and expects_success(scenario.expect.status) \
        and not scenario.expect.may_fail


def wanted_usage(scenario: Scenario, front: Dialect) -> dict[str, int]:
    """The scenario's usage in the front's field names (JSON paths under the usage object)."""
    usage = scenario.usage
    return DIALECTS[front].usage(usage.input_tokens, usage.output_tokens, usage.cached_tokens)


def front_usage(answer: FrontAnswer) -> tuple[dict[str, Any] | None, str]:
    """The usage the front reported (the fields of `wanted_usage`, flattened), and where it was read; None when
    the answer carries no usage at all."""
    front = answer.front
    if not answer.events:
        body = answer.exchange.json()
        if not isinstance(body, Mapping) or not isinstance(body.get("usage"), Mapping):
            return None, "$.usage of the body"
        return flat(body["usage"]), "$.usage of the body"
    payloads = []
    for event in answer.events:
        try:
            payloads.append(json.loads(event.data))
        except ValueError:
            continue
    found: dict[str, Any] | None = None
    where = ""
    spec = DIALECTS[front]
    for payload in (p for p in payloads if isinstance(p, Mapping)):
        read = spec.read_usage(payload, found)
        if read is not None:
            found, where = read
    return found, where or spec.usage_where


def check_usage(findings: Findings, scenario: Scenario, answer: FrontAnswer, upstream_dialect: Dialect | None = None,
                upstream_request: JSONValue = None) -> None:
    """GW-USAGE-001: every usage field of the front's shape holds the upstream's count (a missing cached count
    counts as 0). A streaming Chat upstream sends usage only when the request asks for it
    (`stream_options.include_usage`): where the gateway's upstream request (`upstream_request`, the first one the
    mock received) did not, the finding is that request field, not the counts the upstream never sent."""
    if answer.result.status not in ("completed", "incomplete"):
        return  # the expected and fault rules judge a response that did not succeed
    findings.check("GW-USAGE-001")
    wanted = wanted_usage(scenario, answer.front)
    got, where = front_usage(answer)
    asked = _usage_not_asked(scenario, upstream_dialect, upstream_request)
    if asked is not None:
        front = "none" if got is None else \
            f"usage it cannot have had: {_show({k: got[k] for k in wanted if k in got})}"
        findings.fail("GW-USAGE-001", f"the gateway's upstream request has {asked}, so the upstream sent no usage "
                      f"(the front reported {front}): a streaming Chat upstream sends usage only when asked; send "
                      '"stream_options": {"include_usage": true} upstream',
                      Evidence(path="$.stream_options.include_usage", expected=True,
                               actual=_include_usage(upstream_request)))
        return
    if got is None:
        findings.fail("GW-USAGE-001", f"the upstream reported usage {_show(wanted)}; the front reported none "
                      f"({where})", Evidence(path=where, expected=_show(wanted), actual=None))
        return
    for key, value in wanted.items():
        actual = got.get(key, 0 if "cached" in key or key.startswith("cache_") else None)
        if actual != value:
            findings.fail("GW-USAGE-001", f"usage.{key} is {shown(actual)} at the front; the upstream's usage makes it "
                          f"{value} ({where})", Evidence(path=f"usage.{key}", expected=value, actual=actual))


def _include_usage(request: JSONValue) -> JSONValue:
    options = request.get("stream_options") if isinstance(request, Mapping) else None
    return options.get("include_usage") if isinstance(options, Mapping) else None


def _usage_not_asked(scenario: Scenario, upstream_dialect: Dialect | None, request: JSONValue) -> str | None:
    """What the gateway's streaming Chat upstream request says instead of `stream_options.include_usage: true`
    ("no stream_options.include_usage", or the value it has), when the mock therefore sent no usage (a scenario
    whose `chat.usage` places usage sends it whatever the request says); None otherwise."""
    asked = DIALECTS[upstream_dialect].stream_options if upstream_dialect is not None else None
    if asked is None or scenario.chat.usage is not None or not isinstance(request, Mapping):
        return None
    if request.get("stream") is not True:
        return None  # a non-stream body carries usage unasked
    value = _include_usage(request)
    if value is True:
        return None
    if value is None:
        return "no stream_options.include_usage"
    return f"stream_options.include_usage {shown(value)}"


def _show(usage: Mapping[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in usage.items())
