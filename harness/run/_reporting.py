"""A run's verdicts as the report model (callproof.harness.report_model): a judged case becomes a `Case`, the cases of
a run a `Report`. Cases travel as their JSON form (`Case.to_json`) from pytest-xdist workers to the controller,
which alone assembles and writes the report.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

from callproof.harness._version import __version__
from callproof.harness.check import escape_surrogates
from callproof.harness.judge import CaseResult
from callproof.harness.report_model import BaselineMark, Case, Report, RuleOutcome, Shard, Target, TimelineEvent
from callproof.harness.scenario import Scenario

from ._config import RunConfig

__all__ = ["build_report", "case_of", "scenario_set_hash"]


def case_of(result: CaseResult, config: RunConfig, *, baseline: BaselineMark | None = None) -> Case:
    """One case of the report; `baseline` is "covered" (listed failure: the case is xfailed) or "stale" (listed,
    now passing)."""
    spec = result.spec
    timeline = tuple(TimelineEvent.from_json(row) for row in result.timeline)
    case = Case(
        id=spec.id, scenario=spec.scenario, group=spec.group, front=config.front,
        upstream_dialect=config.upstream_dialect if config.mode == "gateway" else None,
        outcome="xfailed" if baseline == "covered" else result.outcome, message=result.message,
        duration_s=round(result.seconds, 4),
        results=tuple(RuleOutcome.of(r, result.excerpts.get(r.rule.id), flaky=r.rule.id in result.flaky)
                      for r in result.results if r.outcome != "not-applicable"),
        details=dict(result.details), baseline=baseline,
        repro=config.repro(spec.id), timeline=timeline or None,
    )
    data = case.to_json()
    safe = escape_surrogates(data)
    return case if safe == data else Case.from_json(safe)


def scenario_set_hash(scenarios: Iterable[Scenario]) -> str:
    """A short hash of the scenario ids and contents a run used (two runs compare only on the same set)."""
    digest = hashlib.sha256()
    for scenario in sorted(scenarios, key=lambda s: s.id):
        digest.update(repr(scenario).encode())
    return digest.hexdigest()[:16]


def build_report(
    config: RunConfig, cases: Sequence[Case], *, started_at: str, duration_s: float, command: Sequence[str],
    scenario_hash: str, complete: bool = True, shard: Shard | None = None, stopped: str | None = None,
) -> Report:
    return Report.new(version=__version__, profile=config.profile, target=Target.from_json(config.target_json()),
                      command=command, scenario_set=scenario_hash, started_at=started_at, duration_s=duration_s,
                      cases=cases, complete=complete and stopped is None, shard=shard, stopped=stopped)
