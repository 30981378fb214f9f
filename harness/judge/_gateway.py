"""Gateway mode (docs/spec/contracts.md §7.8): one scenario sent through the IUT's front, with the mock as its
upstream, and the sandwich rules that compare what the mock sent and received (its journal) with what the front
emitted: id mapping, fault propagation, incremental forwarding, stream vs non-stream equivalence, isolation.
Request translation lives in `_translation`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from callproof.harness._types import Dialect, JSONValue
from callproof.harness.catalogue import Evidence, Profile
from callproof.harness.check import CheckReport, SSEEvent, SSEParser, StreamChecker, check_body, short
from callproof.harness.dialects import DIALECTS, Column
from callproof.harness.outcome import Exchange, Result, result_of_body, result_of_events, status_matches
from callproof.harness.scenario import Expect, Scenario, cut_kinds, http_error_fault

from ._endings import REFUSAL_AT, as_filtered, filter_reported_as_refusal
from ._expected import call_value, expected_calls, expects_success
from ._findings import Findings

__all__ = [
    "ERROR_SHAPES",
    "FrontAnswer",
    "UpstreamView",
    "check_ending",
    "check_equivalence",
    "check_faults",
    "check_ids",
    "check_isolation",
    "error_shape_problem",
    "read_answer",
]

_INCOMPLETE_REASON = {"length": "max_output_tokens", "content_filter": "content_filter"}


@dataclass(frozen=True, slots=True)
class FrontAnswer:
    """What came back from the front: the exchange, its events with arrival times, the single-stream check
    (None for an HTTP error, which has no stream to check) and the result a client would hold."""

    exchange: Exchange
    events: tuple[SSEEvent, ...]
    report: CheckReport | None
    result: Result
    front: Dialect


@dataclass(frozen=True, slots=True)
class UpstreamView:
    """The mock's journal for one case: request bodies, for the first request its writes (time, bytes), and the
    times of the writes that carried output content (text or argument deltas), in the upstream's dialect."""

    bodies: tuple[Any, ...]
    writes: tuple[tuple[float, bytes], ...]
    content_times: tuple[float, ...] = ()
    #: (time, seconds the IUT and the harness had waited for a CPU so far), sampled while the case played (the
    #: timing rules' evidence of load, GW-STREAM-001/002); empty where nothing sampled them.
    waits: tuple[tuple[float, float], ...] = ()
    #: What the mock's answer to the first request holds, read in the upstream's dialect as a client would (an
    #: aborted body as an abort: `result_of_events`); None where it was not read (no request, a WebSocket upstream).
    sent: Result | None = None


def read_answer(exchange: Exchange, profile: Profile, front: Dialect) -> FrontAnswer:
    """Parse and check what a `front` front answered (SSE stream, JSON body or HTTP error); a stream whose body was
    aborted (`Exchange.aborted`) is judged as the error ending it is."""
    status = exchange.status or 0
    if status >= 400 or exchange.status is None:
        answer = result_of_body(exchange.json(), status, front) if status else None
        result = answer or Result("error", "", (), "no answer", error=exchange.error)
        return FrontAnswer(exchange, (), None, result, front)
    if not exchange.is_sse:
        return FrontAnswer(exchange, (), check_body(exchange.body, front=front, profile=profile),
                           result_of_body(exchange.json(), status, front), front)
    checker = StreamChecker(front, profile)
    parser = SSEParser()
    events: list[SSEEvent] = []
    for chunk in exchange.chunks:
        checker.feed(chunk.data, chunk.time)
        events.extend(parser.feed(chunk.data, chunk.time))
    parser.close()
    aborted = exchange.aborted is not None  # an error ending, not a stream that just ends (docs/spec/verdicts.md §7)
    return FrontAnswer(exchange, tuple(events), checker.close(aborted),
                       result_of_events(events, front, aborted=exchange.aborted), front)


def check_ids(findings: Findings, scenario: Scenario, result: Result) -> None:
    """GW-ID-001: an id the upstream gave one call only comes through as its call_id, unchanged; calls it gave no id
    or an id it repeated (its fault) get ids unique in the answer, and one of them may keep the repeated id
    (docs/spec/contracts.md §7.8, ids)."""
    wanted = expected_calls(scenario.expect.tool_calls)
    if not wanted or not expects_success(scenario.expect.status) or not result.calls:
        return
    findings.check("GW-ID-001")
    upstream_ids = [c.call_id for c in scenario.calls]
    seen: set[str] = set()
    for index, call in enumerate(result.calls[: len(upstream_ids)]):
        upstream = upstream_ids[index]
        repeated = upstream is not None and upstream_ids.count(upstream) > 1
        evidence = Evidence(path=f"$.response.output[?(@.type=='function_call')][{index}].call_id",
                            expected=upstream if upstream and not repeated else "a unique non-empty id",
                            actual=call.call_id)
        has = "no call_id" if call.call_id is None else f"call_id {call.call_id!r}"
        if upstream and not repeated and call.call_id != upstream:
            findings.fail("GW-ID-001", f"call {index} ({call.name}) has {has}; the upstream sent id {upstream!r}",
                          evidence)
        elif not call.call_id or call.call_id in seen:
            why = "" if call.call_id is None else ", empty" if not call.call_id else ", already used by an earlier call"
            findings.fail("GW-ID-001", f"call {index} ({call.name}) has {has}{why}; the upstream sent "
                          f"{'no id' if upstream is None else f'the repeated id {upstream!r}'}", evidence)
        if call.call_id:
            seen.add(call.call_id)


def _http_fault(scenario: Scenario) -> Mapping[str, Any] | None:
    """The parameters of the certain fault that answers with an HTTP error instead of a stream (the fault table's
    `http_error` kinds), or None."""
    fault = http_error_fault(scenario.faults)
    return None if fault is None else dict(fault.params)


def has_fault_rules(scenario: Scenario) -> bool:
    return bool(_http_fault(scenario) or cut_kinds(scenario.faults)
                or scenario.ending in ("failed", "length", "content_filter"))


def check_faults(findings: Findings, scenario: Scenario, answer: FrontAnswer, sent: Result | None = None) -> None:
    """GW-FAULT-001..004. `sent`: what the upstream's answer holds (`UpstreamView.sent`): an upstream cut after its
    outcome was settled (`Result.settled`) did not fail, and the front may finish the turn (docs/spec/verdicts.md
    §1; EXP-004 judges how)."""
    http = _http_fault(scenario)
    status = answer.exchange.status
    if http is not None:
        findings.check("GW-FAULT-001")
        if status is not None and status < 400:
            findings.fail("GW-FAULT-001", f"the upstream answered HTTP {http['status']} before streaming; the front "
                          f"answered HTTP {status} ({answer.result.terminal})",
                          Evidence(path="HTTP status", expected=f">= 400 (upstream {http['status']})", actual=status))
        elif status is not None:
            shape = error_shape_problem(answer.front, answer.exchange.json())
            if shape is not None:
                findings.fail("GW-FAULT-001", f"the front answered HTTP {status}, but its body is {shape}",
                              Evidence(path="$", expected=ERROR_SHAPES[answer.front],
                                       actual=short(answer.exchange.json())))
        if http["status"] == 429:
            findings.check("GW-FAULT-002")
            retry = answer.exchange.headers.get("retry-after")
            wanted = http.get("retry_after")
            if status != 429:
                findings.fail("GW-FAULT-002", f"the upstream's 429 became "
                              f"{'no answer' if status is None else f'HTTP {status}'}",
                              Evidence(path="HTTP status", expected=429, actual=status))
            elif wanted is not None and (retry is None or not _same_seconds(retry, float(wanted))):
                header = "missing" if retry is None else repr(retry)
                findings.fail("GW-FAULT-002", f"Retry-After is {header} at the front; the upstream sent {wanted:g}",
                              Evidence(path="header retry-after", expected=f"{wanted:g}", actual=retry))
    cut = cut_kinds(scenario.faults)  # the faults that cut the stream short (the fault table's `cuts_stream`)
    if cut or scenario.ending == "failed":
        findings.check("GW-FAULT-003")
        settled = sent is not None and sent.settled is not None
        if answer.result.status == "completed" and not settled:
            what = ", ".join(sorted(cut) or ["a failed ending"])
            if sent is not None and sent.error is not None and sent.terminal in ("cut", "abort"):
                what += f": {sent.error}"
            findings.fail("GW-FAULT-003", f"the upstream failed mid-stream ({what}) and the front still "
                          f"ended normally, with {answer.result.terminal}",
                          Evidence(event_type=answer.result.terminal, expected=DIALECTS[answer.front].failed_end,
                                   actual=answer.result.terminal))
    check_ending(findings, scenario, answer)


def check_ending(findings: Findings, scenario: Scenario, answer: FrontAnswer, *, twin: bool = False) -> None:
    """GW-FAULT-004 on one answer (`twin`: the non-stream response to the same request, which the rule judges
    too): an upstream length or content-filter finish becomes the front's incomplete finish with its reason, and a
    content filter is never reported as the model refusing (docs/spec/verdicts.md §6)."""
    reason = _INCOMPLETE_REASON.get(scenario.ending)
    if reason is None:
        return
    findings.check("GW-FAULT-004")
    form = 0 if answer.exchange.is_sse else 1
    half = "the non-stream response: " if twin else ""
    paths, names = DIALECTS[answer.front].incomplete_at, DIALECTS[answer.front].incomplete_reasons
    result = as_filtered(scenario, answer.result)  # a refusal in its place is the finding below, counted once
    if result.status != "incomplete" or result.incomplete_reason != reason:
        got = names.get(result.incomplete_reason or "", result.incomplete_reason)
        findings.fail("GW-FAULT-004", f"{half}the upstream finished with {scenario.ending}; the front ended "
                      f"{result.status} (by {result.terminal}), expected {paths[form][2:]} {names[reason]!r}",
                      Evidence(path=paths[form], expected=names[reason], actual=got))
    if filter_reported_as_refusal(scenario, answer.result):
        said = answer.result.refusal
        forms, filter_as = DIALECTS[answer.front].refusal_forms, DIALECTS[answer.front].filter_form
        findings.fail("GW-FAULT-004", f"{half}the upstream's content filter cut the turn; the front reported the "
                      f"model refusing instead ({forms[form]}{f', text {short(said)}' if said else ''}): a refusal "
                      f"and a content filter are distinct endings; end it as the content filter ({filter_as})",
                      Evidence(path=REFUSAL_AT[answer.front][form], expected="no refusal: a content filter's ending",
                               actual=said or {"type": "refusal"}))


#: The error body each front's clients parse (docs/spec/contracts.md §7.10).
ERROR_SHAPES: Mapping[str, str] = Column[str]("error_shape")


def error_shape_problem(front: Dialect, body: JSONValue) -> str | None:
    """What is wrong with an HTTP error body for a `front` client, or None: the SDKs read the message from
    `error.message` (and Anthropic's the `type: error` envelope)."""
    if not isinstance(body, Mapping):
        return "not a JSON object"
    error = body.get("error")
    if not isinstance(error, Mapping) or not isinstance(error.get("message"), str):
        return "without an `error` object holding a `message` string"
    envelope = DIALECTS[front].error_envelope_type
    if envelope is not None and (body.get("type") != envelope or not isinstance(error.get("type"), str)):
        return f"not {DIALECTS[front].short}'s error envelope (`type: \"{envelope}\"` and `error.type`)"
    return None


def _same_seconds(header: str, seconds: float) -> bool:
    try:
        return abs(float(header) - seconds) < 1e-9
    except ValueError:
        return False


def _said(result: Result) -> tuple[str, str, list[tuple[str, Any]]]:
    """What GW-EQ-001 compares of an answer: its status, its text and its calls."""
    return result.status, result.text, [(c.name, call_value(c)) for c in result.calls]


def check_equivalence(findings: Findings, streamed: Result, plain: FrontAnswer, expect: Expect | None = None, *,
                      scenario: Scenario | None = None) -> None:
    """GW-EQ-001: the non-stream answer holds what the stream held: status, text and calls. With the scenario's
    `expect`, the message says which half differs from the expected outcome (the broken one). With the `scenario`,
    a half that reported a content filter's ending as a refusal is read as the content filter's ending (its
    refusal's words as text, or left out where one half added them after its text; an Anthropic stop_reason without
    its stop_details): GW-FAULT-004 judges that in each half against the upstream (docs/spec/verdicts.md §5)."""
    findings.check("GW-EQ-001")
    result = plain.result
    if scenario is not None:
        bare = as_filtered(scenario, streamed, words=False), as_filtered(scenario, result, words=False)
        if _said(bare[0]) == _said(bare[1]):  # the refusal's words one half added: GW-FAULT-004's alone
            return
        streamed, result = as_filtered(scenario, streamed), as_filtered(scenario, result)
    mine, theirs = _said(result), _said(streamed)
    if mine == theirs:
        return
    labels = ("status", "text", "tool calls")
    differ = [label for label, a, b in zip(labels, mine, theirs, strict=True) if a != b]
    message = (f"the non-stream response differs from the stream in {', '.join(differ)}: stream {short(theirs)}, "
               f"non-stream {short(mine)}")
    evidence = Evidence(path="non-stream response", expected=short(theirs), actual=short(mine))
    if expect is not None:
        wrong = [half for half, got in (("stream", streamed), ("non-stream response", result))
                 if not _as_expected(expect, got)]
        if len(wrong) == 1:
            right = "non-stream response" if wrong == ["stream"] else "stream"
            message += f"; the {wrong[0]} differs from the scenario's expected outcome, the {right} matches it"
            wanted = (expect.status, expect.text, expected_calls(expect.tool_calls))
            evidence = Evidence(path=wrong[0], expected=short(wanted), actual=short(theirs if wrong == ["stream"]
                                                                                   else mine))
        elif wrong:
            message += "; both differ from the scenario's expected outcome"
    findings.fail("GW-EQ-001", message, evidence)


def _as_expected(expect: Expect, result: Result) -> bool:
    """Whether a result ended as the scenario expects: status, and for a success its calls and text."""
    if not status_matches(expect.status, result.status):
        return False
    if not expects_success(expect.status):
        return True
    calls = [(c.name, call_value(c)) for c in result.calls]
    return calls == expected_calls(expect.tool_calls) and (expect.text is None or result.text == expect.text)


def check_isolation(findings: Findings, runs: Sequence[tuple[Scenario, Result, Result]]) -> None:
    """GW-ISO-001: each of several concurrent answers (scenario, its answer, the same gateway's answer to the
    scenario alone) equals the answer alone: the calls by name and arguments (parsed, in order; never by id, which
    a gateway may mint afresh), the text byte for byte, the status, failure or not, and the incomplete reason.
    Compared with the answer alone, not with the scenario's expectation: a bug the gateway has alone is its own
    rule's, judged in the scenario's cases, not an isolation bug."""
    findings.check("GW-ISO-001")
    for scenario, result, alone in runs:
        if _isolated(result) == _isolated(alone):
            continue
        got, wanted = _calls_of(result), _calls_of(alone)
        findings.fail("GW-ISO-001", f"concurrent case {scenario.id} got calls {short(got)} and text "
                      f"{short(result.text)}{_ending(result)}; alone the same gateway answered {short(wanted)} and "
                      f"{short(alone.text)}{_ending(alone)}",
                      Evidence(path=scenario.id, expected=short(_isolated(alone)), actual=short(_isolated(result))))


def _calls_of(result: Result) -> list[tuple[str, JSONValue]]:
    """(name, arguments) of each call: parsed JSON, or {"$text": ...} for a text that is not JSON."""
    return [(c.name, call_value(c)) for c in result.calls]


def _isolated(result: Result) -> list[Any]:
    """What GW-ISO-001 compares: calls (kind, name, arguments), text, status, failure or not, incomplete reason."""
    calls = [[c.kind, name, value] for c, (name, value) in zip(result.calls, _calls_of(result), strict=True)]
    return [calls, result.text, result.status, result.error is not None, result.incomplete_reason]


def _ending(result: Result) -> str:
    """How the answer ended, as the isolation evidence names it: `, ended completed` (with its incomplete reason or
    error)."""
    detail = f" ({result.incomplete_reason})" if result.incomplete_reason else ""
    detail += f" with error {short(result.error)}" if result.error is not None else ""
    return f", ended {result.status}{detail}"
