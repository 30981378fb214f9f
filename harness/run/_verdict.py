"""Judging a played scenario: the rules of one case's group, and the case's verdict (docs/report.md#outcomes):
passed, failed with the timeline and excerpts of the failure, skipped (with why) when no rule of the group applies
to what the IUT did, or error when what came back cannot be judged (no verdict without evidence)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from callproof.harness.catalogue import STREAM_FAMILIES, Evidence, RuleResult
from callproof.harness.judge import (
    DEFAULT_SLACK,
    CaseResult,
    CaseSpec,
    Findings,
    FrontAnswer,
    check_arguments,
    check_client,
    check_equivalence,
    check_faults,
    check_ids,
    check_rejection,
    check_streaming,
    check_translation,
    check_usage,
    check_xml_policy,
    excerpts,
    expected_outcome,
    policy_expect,
    rejected_reason,
    timeline,
    what_arrived,
)
from callproof.harness.request import front_request

from ._config import RunConfig
from ._plan import GROUP_PREFIX
from ._scenario_run import ScenarioRun

__all__ = ["group_results", "over_limit", "skip_reason", "summary", "verdict"]


def group_results(
    spec: CaseSpec, run: ScenarioRun, config: RunConfig, plain: Callable[[ScenarioRun], FrontAnswer | None], *,
    slack: float | None = None,
) -> tuple[RuleResult, ...]:
    """The results of the rules of `spec.group` on `run`; `plain` fetches the non-stream answer (equivalence);
    `slack` is the calibrated slack of the causal timing rule (GW-STREAM-002). A rejection (`run.rejection`) is
    judged by GW-REQ-008 alone, in the translation group; a valid one leaves the other groups nothing to judge."""
    if run.rejection and run.answer is not None:
        findings = Findings()
        if spec.group == "translation":
            check_rejection(findings, run.scenario, run.answer)
            return findings.results()
        if run.unjudged is None:
            return ()
    if spec.group in STREAM_FAMILIES:
        assert run.answer is not None
        report = run.answer.report
        if report is None:
            return ()
        return tuple(r for r in report.results if r.rule.family == spec.group)
    findings = Findings()
    scenario = run.scenario
    expect = policy_expect(scenario, config.policies)  # the scenario's expectation under the run's --policy
    if spec.group == "expected":
        result = run.adapter_result if config.mode == "client" else run.answer.result if run.answer else None
        if result is not None:
            expected_outcome(findings, expect, result)
    elif spec.group == "client":
        assert run.adapter is not None and run.wire is not None
        check_client(findings, scenario, run.adapter, run.adapter_result, run.wire, run.wire_item_ids,
                     run.wire_faults)
    else:
        assert run.answer is not None and run.upstream is not None
        if spec.group == "translation":
            # the upstream is judged against the request in Responses form whatever the front's dialect: the
            # same scenario request, markers, history and ids as the front request, in the form the judge reads
            reference = front_request(scenario.id, scenario.request, case=run.case, model=config.model)
            user_text = _user_text(reference)
            check_translation(findings, config.upstream_dialect, reference, user_text, list(run.upstream.bodies))
        elif spec.group == "policy":
            check_xml_policy(findings, scenario, run.answer.result, config.policies)
        elif spec.group == "arguments":
            check_arguments(findings, scenario, run.answer.result)
        elif spec.group == "usage":
            check_usage(findings, scenario, run.answer)
        elif spec.group == "ids":
            check_ids(findings, scenario, run.answer.result)
        elif spec.group == "faults":
            check_faults(findings, scenario, run.answer)
        elif spec.group == "streaming":
            check_streaming(findings, run.answer, run.upstream, DEFAULT_SLACK if slack is None else slack)
        elif spec.group == "equivalence" and run.unjudged is None:  # an unjudgeable stream has no half to compare
            answer = plain(run)
            if answer is not None:
                check_equivalence(findings, run.answer.result, answer, expect=expect)
    prefix = GROUP_PREFIX[spec.group]
    return tuple(r for r in findings.results() if r.rule.id.startswith(prefix))


def verdict(
    spec: CaseSpec, run: ScenarioRun, results: tuple[RuleResult, ...], seconds: float, details: dict[str, Any]
) -> CaseResult:
    """The case's result from its rules' results: skipped, passed, failed with the evidence of the failure, or,
    when the run gave nothing judgeable (`run.unjudged`), error, or failed where a MUST rule failed anyway."""
    failed = [r for r in results if r.outcome == "failed"]
    rows: tuple[Mapping[str, Any], ...] = ()
    cuts: dict[str, str] = {}
    if run.answer is not None and run.answer.events:
        rows = tuple(timeline(run.answer.events, run.answer.exchange.sent))
        cuts = excerpts(run.answer.exchange.body, failed)
    if run.unjudged is not None:
        if not any(r.rule.level == "MUST" for r in failed):  # nothing judged may pass, nor pass on SHOULDs only
            message = "\n".join([run.unjudged, summary(failed)]) if failed else run.unjudged
            return CaseResult(spec, "error", tuple(failed), message, seconds, details, rows, cuts)
        return CaseResult(spec, "failed", results, f"{summary(failed)}\n{run.unjudged}", seconds, details, rows,
                          cuts)
    if not any(r.outcome != "not-applicable" for r in results):
        return CaseResult(spec, "skipped", results, skip_reason(spec, run), seconds, details)
    if not failed:
        return CaseResult(spec, "passed", results, "", seconds, details)
    return CaseResult(spec, "failed", results, summary(failed), seconds, details, rows, cuts)


_LIMIT = re.compile(r"--max-(?:events|bytes) \d+")
_COUNT = re.compile(r"\((\d+ (?:events|bytes)) read")


def over_limit(spec: CaseSpec, why: str, seconds: float, details: dict[str, Any]) -> CaseResult:
    """A case whose answer went past `--max-events` / `--max-bytes` (`why` names the limit and the count): failed
    by GW-LIMIT-001, whatever its group, since no rule can certify an answer the harness stopped reading."""
    findings = Findings()
    limit, count = _LIMIT.search(why), _COUNT.search(why)
    findings.fail("GW-LIMIT-001", why, Evidence(path="the answer", expected=limit.group(0) if limit else None,
                                                actual=count.group(1) if count else None))
    results = findings.results()
    return CaseResult(spec, "failed", results, summary(results), seconds, {**details, "over_limit": why})


def skip_reason(spec: CaseSpec, run: ScenarioRun) -> str:
    """Why no rule of the case's group applies to what the IUT did (a skipped case always says why)."""
    answer = run.answer
    if run.rejection and run.unjudged is None and answer is not None:
        return rejected_reason(answer, run.scenario)
    if spec.group in STREAM_FAMILIES and answer is not None and answer.report is None:
        return (f"the IUT answered {what_arrived(answer)} before streaming, a way to fail that this scenario "
                f"allows: there is no stream for the {spec.group} rules")
    if spec.group == "ids" and answer is not None and not answer.result.calls:
        return "the IUT completed no tool call, so no call id to compare (the expected group judges the calls)"
    if spec.group == "streaming":
        return ("the upstream's content came in too short a burst, with no scripted pause, to tell streaming "
                "from buffering")
    return f"no rule of group {spec.group!r} applies to what this scenario produced"


def summary(failed: Sequence[RuleResult]) -> str:
    """One paragraph per failed rule: its first violation (where), how many more, and the fix."""
    lines = []
    for result in failed:
        first = result.violations[0] if result.violations else None
        where = f" [{first.evidence.describe()}]" if first is not None else ""
        message = first.message if first is not None else result.rule.statement
        more = f" (+{result.count - 1} more)" if result.count > 1 else ""
        lines.append(f"{result.rule.id} {result.rule.level}: {message}{where}{more}\n    fix: {result.rule.fix}")
    return "\n".join(lines)


def _user_text(request: Mapping[str, Any]) -> str:
    """The text of the first user message (it carries the markers): a bare string input, or a message whose
    content is a string or text parts."""
    if isinstance(request["input"], str):
        return request["input"]
    for item in request["input"]:
        if item.get("type") == "message" and item.get("role") == "user":
            content = item["content"]
            return content if isinstance(content, str) else str(content[0]["text"])
    return ""
