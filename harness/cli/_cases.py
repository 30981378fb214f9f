"""The cases a `callproof run` command line selects, planned before anything is started: `--list-cases` prints
them, and a `-k` that selects none of them (or is not a `-k` expression) is a setup problem, found in a second
instead of after the IUT was launched (harness/run/_keyword.py decides -k as pytest would)."""

from __future__ import annotations

import argparse
import sys
from importlib.resources import files
from pathlib import Path

from callproof.harness.judge import CaseSpec
from callproof.harness.report_model import read_report
from callproof.harness.run import (
    ConfigError,
    Harness,
    IUTError,
    case_durations,
    closest_cases,
    keyword_selects,
    shard_cases,
)
from callproof.harness.scenario import ScenarioError

from ._exit import ExitCode
from ._run_config import run_config

__all__ = ["keyword_problem", "list_cases"]


def _suite_folder() -> Path:
    """Where the bundled suite is installed: pytest names its folders among every case's names (for -k)."""
    return Path(str(files("callproof.suite")))


def _planned(args: argparse.Namespace) -> list[CaseSpec] | str:
    """Every case of this command line's run, planned without starting anything; or why it cannot be planned."""
    try:
        return Harness(run_config(args)).cases()
    except (ConfigError, ScenarioError, IUTError) as exc:
        return str(exc)


def _keyword(args: argparse.Namespace, specs: list[CaseSpec]) -> list[CaseSpec] | None:
    """The cases -k selects (all without -k); None when only pytest can apply this expression. Raises
    `ValueError`: not a -k expression."""
    if not args.keyword:
        return specs
    ids = keyword_selects(args.keyword, [s.id for s in specs], Path.cwd(), _suite_folder())
    if ids is None:
        return None
    chosen = set(ids)
    return [s for s in specs if s.id in chosen]


def _not_an_expression(args: argparse.Namespace) -> str | None:
    try:
        keyword_selects(args.keyword or "", [], Path.cwd(), _suite_folder())
    except ValueError as exc:
        return (f"-k {args.keyword!r} is not a pytest -k expression: {exc} (names joined by and, or, not and "
                "parentheses)")
    return None


def list_cases(args: argparse.Namespace) -> int:
    """`--list-cases`: the ids of the cases this run would judge (after -k and --shard), one a line."""
    specs = _planned(args)
    problem = specs if isinstance(specs, str) else _not_an_expression(args)
    if problem is not None:
        print(f"callproof run: {problem}", file=sys.stderr)
        return ExitCode.USAGE
    assert not isinstance(specs, str)
    chosen = _keyword(args, specs)
    if chosen is None:
        print(f"callproof run: --list-cases cannot apply -k {args.keyword!r} without pytest (it names a folder of "
              "the installed suite); list every case without -k", file=sys.stderr)
        return ExitCode.USAGE
    if args.shard:
        index, count = (int(n) for n in args.shard.split("/"))
        durations = case_durations(read_report(args.shard_durations)) if args.shard_durations else None
        chosen = shard_cases(chosen, index, count, durations)
    for spec in chosen:
        print(spec.id)
    return ExitCode.OK


def keyword_problem(args: argparse.Namespace) -> str | None:
    """With -k: the one line saying it is not a -k expression, or selects none of the run's cases (with the nearest
    ids); None without -k, when it selects some, or when only pytest can tell."""
    if not args.keyword:
        return None
    problem = _not_an_expression(args)
    specs = _planned(args)
    if problem is not None or isinstance(specs, str) or _keyword(args, specs) != []:
        return problem
    near = closest_cases(args.keyword, [s.id for s in specs])
    hint = f"; did you mean {' or '.join(near)}?" if near else ""
    return (f"-k {args.keyword!r} matches none of the {len(specs)} cases of this run{hint} (add --list-cases to "
            "this command to list them)")
