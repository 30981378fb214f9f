"""`callproof docs`: the documentation an installed callproof ships (docs/ and docs/spec/ as `callproof.docs`, the
scenario format and the JSON Schemas), printed whole or one section at a time. The messages callproof prints cite
documents as these commands (`callproof docs contracts#7.8`: callproof.harness._doc_refs spells them)."""

from __future__ import annotations

import argparse
import difflib
import json
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from importlib.resources.abc import Traversable
from pathlib import Path

from callproof.harness._doc_refs import SCENARIO_FORMAT, topics

from ._exit import ExitCode

__all__ = ["add_arguments", "run"]

_FENCE = re.compile(r"^(```|~~~)")
_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_NUMBERED = re.compile(r"^(\d+(?:\.\d+)*)[ .]")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Print the documentation that ships with callproof: a guide (cli, mock, adapters, ...), a part of the "
        "specification (contracts, sse, ...), the scenario format or a JSON Schema; whole, or one section "
        "(TOPIC#SECTION: a section number like contracts#7.8, a heading's anchor like adapters#layers, a rule id "
        "like rules#GW-ARGS-001, a schema definition like scenario-schema#fault). Without a topic: the topics."
    )
    parser.add_argument("topic", nargs="?", metavar="TOPIC[#SECTION]", help="what to print (default: list the topics)")
    parser.add_argument("section", nargs="?", metavar="SECTION", help="the section, if not given after a #")
    parser.add_argument("--path", action="store_true", help="print where the file is instead of its text")


@dataclass(frozen=True, slots=True)
class _Heading:
    level: int
    text: str
    line: int
    anchor: str


def _title(entry: Traversable) -> str:
    text = entry.read_text(encoding="utf-8")
    if entry.name.endswith(".json"):
        schema = json.loads(text)
        return str(schema.get("title") or schema.get("description") or entry.name).splitlines()[0]
    return next((line.lstrip("#").strip() for line in text.splitlines() if line.startswith("# ")), entry.name)


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, markup and punctuation dropped, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = re.sub(r"<[^>]+>", "", text).replace("`", "").lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _headings(lines: list[str]) -> Iterator[_Heading]:
    fenced = False
    seen: dict[str, int] = {}
    for number, line in enumerate(lines):
        if _FENCE.match(line):
            fenced = not fenced
        found = None if fenced else _HEADING.match(line)
        if found is not None:
            base = _slug(found[2])
            count = seen.get(base, 0)
            seen[base] = count + 1
            yield _Heading(len(found[1]), found[2], number, base if count == 0 else f"{base}-{count}")


def _names(heading: _Heading) -> list[str]:
    """What a section is asked for by: its number (`7.8`), its anchor, its heading (any case)."""
    numbered = _NUMBERED.match(heading.text)
    return [*([numbered[1]] if numbered else []), heading.anchor, heading.text.lower()]


def _section(text: str, wanted: str) -> str | None:
    """The section of a Markdown text a SECTION names (a number, `§7.8` too; an anchor; a heading), from its
    heading to the next heading of the same or a higher level; None when there is none."""
    key = wanted.strip().lower()
    lines = text.splitlines()
    headings = list(_headings(lines))
    for index, heading in enumerate(headings):
        if key in _names(heading):
            end = next((h.line for h in headings[index + 1:] if h.level <= heading.level), len(lines))
            return "\n".join(lines[heading.line:end]).rstrip() + "\n"
    return None


def _sections(text: str) -> list[str]:
    return [name for h in _headings(text.splitlines()) for name in _names(h)[:2]]


def _usage(message: str) -> int:
    print(f"callproof docs: {message}", file=sys.stderr)
    return ExitCode.USAGE


def _near(word: str, choices: list[str]) -> str:
    near = difflib.get_close_matches(word, choices, n=1)
    return f"; did you mean {near[0]}?" if near else ""


def _topic(name: str) -> str:
    """A topic by name, or by the repository path of its file (docs/spec/contracts.md, schemas/NAME.schema.json)."""
    name = name.removeprefix("./")
    if name.startswith("schemas/") and name.endswith(".schema.json"):
        return f"{name.removeprefix('schemas/').removesuffix('.schema.json')}-schema"
    if name == "scenarios/README.md":
        return SCENARIO_FORMAT
    name = name.removeprefix("docs/").removeprefix("spec/").removesuffix(".md")
    return "spec" if name == "README" else name


def _asked(args: argparse.Namespace) -> tuple[str, str | None]:
    """(topic, section) from `TOPIC#SECTION`, `TOPIC SECTION` or a reference as messages in the repository cite
    it (`docs/spec/contracts.md §7.8`, `schemas/scenario.schema.json#/$defs/fault`)."""
    topic, _, inline = args.topic.strip().strip("`").partition("#")
    topic, _, spaced = topic.strip().partition(" ")
    wanted = (inline or spaced or args.section or "").strip().removeprefix("§").removeprefix("/$defs/")
    return _topic(topic), wanted or None


def run(args: argparse.Namespace) -> int:
    known = topics()
    if args.topic is None:
        width = max(map(len, known))
        for name, listed in known.items():
            print(f"{name:<{width}}  {_title(listed)}")
        return ExitCode.OK
    topic, wanted = _asked(args)
    entry = known.get(topic)
    if entry is None:
        return _usage(f"no topic {topic!r}{_near(topic, list(known))} (`callproof docs` lists them)")
    if args.path:
        print(Path(str(entry)))
        return ExitCode.OK
    text = entry.read_text(encoding="utf-8")
    if wanted is None:
        sys.stdout.write(text)
        return ExitCode.OK
    if entry.name.endswith(".json"):
        definitions = json.loads(text).get("$defs", {})
        if wanted not in definitions:
            return _usage(f"{topic} has no definition {wanted!r}{_near(wanted, list(definitions))} "
                          f"(`callproof docs {topic}` prints it whole)")
        print(json.dumps(definitions[wanted], indent=2, ensure_ascii=False))
        return ExitCode.OK
    found = _section(text, wanted)
    if found is None:
        return _usage(f"{topic} has no section {wanted!r}{_near(wanted.lower(), _sections(text))} "
                      f"(`callproof docs {topic}` prints it whole)")
    sys.stdout.write(found)
    return ExitCode.OK
