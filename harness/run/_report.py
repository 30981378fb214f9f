"""The JSON report of a run (docs/spec/contracts.md §6), validated by schemas/report.schema.json. Every other format
is rendered from it. Cases travel as their JSON form (`case_json`) from pytest-xdist workers to the controller,
which alone assembles and writes the report.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import sys
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from callproof.harness._version import __version__
from callproof.harness.catalogue import RuleResult
from callproof.harness.judge import CaseResult

from ._config import RunConfig

__all__ = ["REPORT_FORMAT", "build_report", "case_json", "scenario_set_hash", "write_report"]

REPORT_FORMAT = 1


def _rule_json(result: RuleResult, excerpt: str | None) -> dict[str, Any]:
    first = result.violations[0] if result.violations else None
    out: dict[str, Any] = {
        "rule": result.rule.id, "level": result.rule.level, "family": result.rule.family, "outcome": result.outcome,
        "message": first.message if first else "", "evidence": first.evidence.to_json() if first else {},
        "count": result.count, "violations": [v.to_json() for v in result.violations[1:]],
        "statement": result.rule.statement, "spec": result.rule.spec, "fix": result.rule.fix,
    }
    if excerpt is not None:
        out["excerpt"] = excerpt
    return out


def case_json(result: CaseResult, config: RunConfig, *, baseline: str | None = None) -> dict[str, Any]:
    """One case of the report; `baseline` is "covered" (listed failure) or "stale" (listed, now passing)."""
    spec = result.spec
    return {
        "id": spec.id, "scenario": spec.scenario, "group": spec.group, "front": "responses",
        "upstream_dialect": config.upstream_dialect if config.mode == "gateway" else None,
        "outcome": result.outcome, "message": result.message, "duration_s": round(result.seconds, 4),
        "results": [_rule_json(r, result.excerpts.get(r.rule.id)) for r in result.results
                    if r.outcome != "not-applicable"],
        "details": dict(result.details), "baseline": baseline,
        "repro": f"callproof run {config.target_option()} -k '{spec.id}'",
        **({"timeline": [dict(row) for row in result.timeline]} if result.timeline else {}),
    }


def scenario_set_hash(scenarios: Iterable[Any]) -> str:
    """A short hash of the scenario ids and contents a run used (two runs compare only on the same set)."""
    digest = hashlib.sha256()
    for scenario in sorted(scenarios, key=lambda s: s.id):
        digest.update(repr(scenario).encode())
    return digest.hexdigest()[:16]


def _summary(cases: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    summary = {k: 0 for k in ("cases", "passed", "failed", "skipped", "xfailed", "error", "must_failed",
                              "should_failed", "stale_baseline")}
    for case in cases:
        summary["cases"] += 1
        summary[case["outcome"]] += 1
        failed = [r for r in case["results"] if r["outcome"] == "failed"]
        summary["must_failed"] += any(r["level"] == "MUST" for r in failed)
        summary["should_failed"] += any(r["level"] == "SHOULD" for r in failed)
        summary["stale_baseline"] += case.get("baseline") == "stale"
    return summary


def build_report(
    config: RunConfig, cases: Sequence[Mapping[str, Any]], *, started_at: str, duration_s: float,
    command: Sequence[str], scenario_hash: str, complete: bool = True,
) -> dict[str, Any]:
    return {
        "format": REPORT_FORMAT,
        "callproof_version": __version__,
        "profile": config.profile,
        "target": config.target_json(),
        "command": list(command),
        "scenario_set": scenario_hash,
        "platform": {"python": sys.version.split()[0], "system": platform.system(), "machine": platform.machine()},
        "started_at": started_at,
        "duration_s": round(duration_s, 3),
        "complete": complete,
        "summary": _summary(cases),
        "cases": sorted(cases, key=lambda c: str(c["id"])),
    }


def write_report(path: Path, report: Mapping[str, Any]) -> None:
    """Write atomically: a reader never sees half a report."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump(report, out, indent=2, ensure_ascii=False)
        out.write("\n")
    os.replace(tmp, path)
