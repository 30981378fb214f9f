"""`callproof rules`: the rule catalogue as text, JSON or a Markdown table."""

from __future__ import annotations

import argparse
import json
import sys

from callproof.harness.catalogue import CATALOGUE, FRONTS, PROFILES
from callproof.harness.check import catalogue_markdown

from ._exit import ExitCode
from ._flags import Subparsers

__all__ = ["add_parser", "run"]


def add_parser(subparsers: Subparsers) -> None:
    rules = subparsers.add_parser("rules", help="print the rule catalogue", description="Print the rule catalogue.")
    rules.add_argument("--format", choices=("text", "json", "md"), default="text", help="output format")
    rules.add_argument("--front", choices=FRONTS, help="only the rules of this front")
    rules.add_argument("--profile", choices=PROFILES, help="only the rules of this profile")


def run(args: argparse.Namespace) -> int:
    selected = [
        rule for rule in CATALOGUE
        if (args.front is None or args.front in rule.fronts) and (args.profile is None or args.profile in rule.profiles)
    ]
    if args.format == "md":
        sys.stdout.write(catalogue_markdown(selected))
    elif args.format == "json":
        rows = [
            {
                "id": r.id, "level": r.level, "family": r.family, "fronts": sorted(r.fronts),
                "profiles": sorted(r.profiles), "statement": r.statement, "spec": r.spec, "fix": r.fix,
                "timing": r.timing,
            }
            for r in selected
        ]
        json.dump(rows, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        for r in selected:
            mark = " [timing: machine load can touch this verdict]" if r.timing else ""
            print(f"{r.id:<15} {r.level:<6} {r.family:<10} {r.statement}{mark}")
    return ExitCode.OK
