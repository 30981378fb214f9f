"""References to the documentation, spelled for whoever reads them. The repository's texts cite its files (a rule's
spec `docs/spec/contracts.md §7.8`, a finding's `docs/adapters.md#layers`, `schemas/scenario.schema.json`); an
installed callproof has no checkout, but its wheel ships those documents and schemas and `callproof docs` prints
them (harness/cli/_docs_command.py). `terminal_refs` turns each such reference in a text printed on a terminal into
the command that prints the same section (`callproof docs contracts#7.8`, `callproof docs adapters#layers`,
`callproof docs scenario-schema#fault`); reports (JSON, Markdown, HTML) keep the repository paths, as links.

The topics are the file names: docs/NAME.md and docs/spec/NAME.md are `NAME` (no name is in both folders),
docs/spec/README.md is `spec`, scenarios/README.md `scenario-format`, schemas/NAME.schema.json `NAME-schema`. A
reference to a file that is no topic is left as it is: a quoted stream may mention a `docs/setup.md` of its own."""

from __future__ import annotations

import functools
import re
from importlib.resources import files
from importlib.resources.abc import Traversable

__all__ = ["SCENARIO_FORMAT", "doc_command", "terminal_refs", "topics"]

#: The topic of the scenario file format (scenarios/README.md).
SCENARIO_FORMAT = "scenario-format"

#: `docs/contracts.md`, `docs/spec/contracts.md §7.8`, `docs/adapters.md#layers` (not inside a URL or a longer path).
_DOC = re.compile(r"(?<![\w/.-])docs/(?:spec/)?(?P<topic>[a-z][a-z0-9-]*)\.md"
                  r"(?:#(?P<anchor>[a-z0-9_-]+)| §(?P<section>\d+(?:\.\d+)*))?")
#: `schemas/scenario.schema.json`, `schemas/scenario.schema.json#/$defs/fault`.
_SCHEMA = re.compile(r"(?<![\w/.-])schemas/(?P<name>[a-z]+)\.schema\.json(?:#/\$defs/(?P<definition>\w+))?")
#: `scenarios/README.md`, the scenario file format.
_FORMAT = re.compile(r"(?<![\w/.-])scenarios/README\.md")


@functools.cache
def topics() -> dict[str, Traversable]:
    """Every topic by name, sorted, with its file in the installed package."""
    docs = files("callproof.docs")
    found = {e.name.removesuffix(".md"): e for e in docs.iterdir() if e.name.endswith(".md")}
    for entry in (docs / "spec").iterdir():
        if entry.name.endswith(".md"):
            found["spec" if entry.name == "README.md" else entry.name.removesuffix(".md")] = entry
    found[SCENARIO_FORMAT] = files("callproof.scenarios") / "README.md"
    for entry in files("callproof.schemas").iterdir():
        if entry.name.endswith(".schema.json"):
            found[f"{entry.name.removesuffix('.schema.json')}-schema"] = entry
    return dict(sorted(found.items()))


def doc_command(topic: str, section: str | None = None) -> str:
    """The command that prints a topic, or one section of it: `callproof docs contracts#7.8`, in backticks."""
    return f"`callproof docs {topic}{'' if not section else '#' + section}`"


def _spelled(match: re.Match[str], topic: str, section: str | None) -> str:
    return doc_command(topic, section) if topic in topics() else match.group(0)


def terminal_refs(text: str) -> str:
    """`text` with each reference to a repository document or schema spelled as the `callproof docs` command that
    prints it."""
    if "docs/" not in text and "schemas/" not in text and "scenarios/" not in text:
        return text
    text = _DOC.sub(lambda m: _spelled(m, m["topic"], m["anchor"] or m["section"]), text)
    text = _SCHEMA.sub(lambda m: _spelled(m, f"{m['name']}-schema", m["definition"]), text)
    return _FORMAT.sub(doc_command(SCENARIO_FORMAT), text)
