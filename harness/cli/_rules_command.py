"""`callproof rules`: the rule catalogue as text, JSON or a Markdown table. Without `--profile` the text has a
profiles column (and a header line): some rules say opposite things for different profiles (RSP-FRAME-001, no
`[DONE]` for `openai`; RSP-FRAME-002, `[DONE]` for `open-responses`), and each row says where it applies.
`callproof rules ID ...` prints those rules in full (their section of docs/rules.md): what the messages of `check`
and `run` point at."""

from __future__ import annotations

import argparse
import difflib
import json
import sys
from collections.abc import Sequence

from callproof.harness._doc_refs import terminal_refs
from callproof.harness.catalogue import CATALOGUE, FRONTS, PROFILES, Rule
from callproof.harness.check import catalogue_markdown, rule_markdown

from ._exit import ExitCode

__all__ = ["add_arguments", "run"]


def add_arguments(rules: argparse.ArgumentParser) -> None:
    rules.description = ("Print the rule catalogue; with rule ids, those rules in full: level, scope, statement, "
                         "fix and the spec section (`callproof docs`) behind it.")
    rules.add_argument("ids", nargs="*", metavar="ID", help="only these rules (any case), printed in full")
    rules.add_argument("--format", choices=("text", "json", "md"), default="text", help="output format")
    rules.add_argument("--front", choices=FRONTS, help="only the rules of this front")
    rules.add_argument("--profile", choices=PROFILES,
                       help="only the rules of this profile (without it, a column names each rule's profiles)")


def _by_id(ids: Sequence[str]) -> list[Rule] | str:
    """The rules of these ids, in the order given, or why one is not a rule id (with the nearest ones)."""
    known = {rule.id: rule for rule in CATALOGUE}
    chosen: list[Rule] = []
    for given in ids:
        rule = known.get(given.strip().upper())
        if rule is None:
            near = difflib.get_close_matches(given.strip().upper(), list(known), n=3)
            hint = f"; did you mean {' or '.join(near)}?" if near else ""
            return f"no rule {given!r}{hint} (`callproof rules` lists them)"
        chosen.append(rule)
    return chosen


def run(args: argparse.Namespace) -> int:
    chosen = _by_id(args.ids) if args.ids else [
        rule for rule in CATALOGUE
        if (args.front is None or args.front in rule.fronts) and (args.profile is None or args.profile in rule.profiles)
    ]
    if isinstance(chosen, str):
        print(f"callproof rules: {chosen}", file=sys.stderr)
        return ExitCode.USAGE
    selected = chosen
    if args.ids and args.format == "text":
        sys.stdout.write(terminal_refs("\n".join(line for rule in selected for line in rule_markdown(rule))))
        return ExitCode.OK
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
        _text(selected, profiles=args.profile is None)
    return ExitCode.OK


def _profiles(rule: Rule) -> str:
    """A rule's profiles in a few characters: `all`, or their names in PROFILES order, comma-separated."""
    return "all" if set(PROFILES) <= rule.profiles else ",".join(p for p in PROFILES if p in rule.profiles)


def _text(rules: Sequence[Rule], *, profiles: bool) -> None:
    """One line per rule; with `profiles`, a header and the column of the profiles each rule applies to."""
    width = max((len(_profiles(r)) for r in rules), default=8) if profiles else 0
    if profiles:
        print(f"{'ID':<15} {'LEVEL':<6} {'FAMILY':<10} {'PROFILES':<{width}} STATEMENT")
    for r in rules:
        mark = " [timing: machine load can touch this verdict]" if r.timing else ""
        column = f"{_profiles(r):<{width}} " if profiles else ""
        print(f"{r.id:<15} {r.level:<6} {r.family:<10} {column}{r.statement}{mark}")
