"""Judging a played scenario: the rules of one case's group, and the case's verdict (docs/report.md#outcomes):
passed, failed with the timeline and excerpts of the failure, skipped (with why) when no rule of the group applies
to what the IUT did, or error when what came back cannot be judged (no verdict without evidence)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from callproof.harness.catalogue import Evidence, RuleResult
from callproof.harness.judge import (
    DEFAULT_SLACK,
    CaseResult,
    CaseSpec,
    Findings,
    FrontAnswer,
    check_rejection,
    excerpts,
    rejected_reason,
    timeline,
)

from ._config import RunConfig
from ._groups import Judging, rule_group, socket_results
from ._scenario_run import ScenarioRun

__all__ = ["attributed", "group_results", "over_limit", "skip_reason", "summary", "turn_problem", "verdict"]


def group_results(
    spec: CaseSpec, run: ScenarioRun, config: RunConfig, plain: Callable[[ScenarioRun], FrontAnswer | None], *,
    slack: float | None = None,
) -> tuple[RuleResult, ...]:
    """The results of the rules of `spec.group` on `run`, as its row of the group table (`_groups.GROUPS`) judges
    them, kept to the group's rule-id prefixes; `plain` fetches the non-stream answer (equivalence, an ending's
    faults); `slack` is the calibrated slack of the causal timing rule (GW-STREAM-002). A rejection
    (`run.rejection`) is judged by GW-REQ-008 alone, in the group that `judges_rejection` (translation); a valid one
    leaves the other groups nothing to judge."""
    group = rule_group(spec.group)
    if run.rejection and run.answer is not None:
        if group.judges_rejection:
            findings = Findings()
            check_rejection(findings, run.scenario, run.answer, upstream=config.upstream_dialect,
                            policies=config.policies)
            return findings.results()
        if run.unjudged is None:  # over a WebSocket, the refusal's error event is judged for its shape (RSP-WS-002)
            return socket_results(run, group.name)
    assert group.judge is not None, f"the {group.name} case is judged by the harness, not by group_results"
    results = group.judge(Judging(run, config, plain, DEFAULT_SLACK if slack is None else slack))
    return tuple(r for r in results if r.rule.id.startswith(group.prefixes))


def verdict(
    spec: CaseSpec, run: ScenarioRun, results: tuple[RuleResult, ...], seconds: float, details: dict[str, Any]
) -> CaseResult:
    """The case's result from its rules' results: skipped, passed, failed with the evidence of the failure, or,
    when the run gave nothing judgeable (`run.unjudged`), error, or failed where a MUST rule failed anyway."""
    failed = [r for r in results if r.outcome == "failed"]
    rows: tuple[Mapping[str, Any], ...] = ()
    cuts: dict[str, str] = {}
    turns = {t.label.number: t.answer.exchange.body for t in run.turns if t.answer is not None}
    if run.answer is not None and run.answer.events:
        rows = tuple(timeline(run.answer.events, run.answer.exchange.sent))
    if failed and (rows or turns):
        cuts = excerpts(run.answer.exchange.body if rows and run.answer is not None else None, failed, turns)
    unjudged = run.unjudged or turn_problem(spec, run)
    if unjudged is not None:
        if not any(r.rule.level == "MUST" for r in failed):  # nothing judged may pass, nor pass on SHOULDs only
            message = "\n".join([unjudged, summary(failed)]) if failed else unjudged
            return CaseResult(spec, "error", tuple(failed), message, seconds, details, rows, cuts)
        return CaseResult(spec, "failed", results, f"{summary(failed)}\n{unjudged}", seconds, details, rows, cuts)
    if not any(r.outcome != "not-applicable" for r in results):
        return CaseResult(spec, "skipped", results, skip_reason(spec, run), seconds, details)
    if not failed:
        return CaseResult(spec, "passed", results, attributed(results), seconds, details)
    return CaseResult(spec, "failed", results, summary(failed), seconds, details, rows, cuts)


def turn_problem(spec: CaseSpec, run: ScenarioRun) -> str | None:
    """Why another turn of the scenario's socket that the case's group judges could not be judged (it produced no
    events, or an error where a response was due): the case is then error, unless a MUST rule failed (nothing that
    was not judged may pass; docs/spec/gateway-websocket.md §6). None: every turn it touches was judged."""
    problems = [t.problem for t in run.turns if t.problem is not None and t.touches(spec.group)]
    return "\n".join(problems) if problems else None


def attributed(results: Sequence[RuleResult]) -> str:
    """A passed case's message: '' unless findings were attributed to the upstream (docs/spec/contracts.md §7.8),
    each then named with its first violation, so that a pass on them stays visible."""
    lines = [f"{r.rule.id} {r.rule.level} attributed to the upstream, not failed: "
             f"{r.violations[0].message if r.violations else r.rule.statement}"
             for r in results if r.outcome == "upstream"]
    return "\n".join(lines)


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
    """Why no rule of the case's group applies to what the IUT did (a skipped case always says why): a valid
    rejection, else what the group's row says (`skipped`), else that nothing of the group applied."""
    answer = run.answer
    if run.rejection and run.unjudged is None and answer is not None:
        return rejected_reason(answer, run.scenario)
    skipped = rule_group(spec.group).skipped
    reason = skipped(run) if skipped is not None else None
    return reason if reason is not None else f"no rule of group {spec.group!r} applies to what this scenario produced"


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
