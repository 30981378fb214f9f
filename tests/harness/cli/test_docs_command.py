"""What a message cites, an installed user can read: `callproof docs TOPIC[#SECTION]` prints the documents the wheel
ships (tests/test_packaging.py checks they are in it), `callproof rules ID` a rule in full, and every reference a
terminal message can carry is spelled as one of those commands, each of which resolves. Reports keep the
repository paths (links)."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from callproof.harness import CATALOGUE
from callproof.harness._doc_refs import terminal_refs
from callproof.harness.cli import main

ROOT = Path(__file__).resolve().parents[3]
#: The package sources whose strings a user may see.
SOURCES = ("harness", "mock_server", "reports", "examples")
#: A `callproof docs TOPIC[#SECTION]` or `callproof rules ID` command as messages spell it.
COMMAND = re.compile(r"`callproof (docs [a-z0-9-]+(?:#[\w.-]+)?|rules [A-Z0-9-]+)`")
#: A repository path a message could cite: a document, a schema, the scenario format.
REPOSITORY_PATH = re.compile(r"(?<![\w/.-])(?:docs/[\w/-]+\.md|schemas/[\w/.-]+\.json|scenarios/README\.md)")


def _message_strings() -> list[tuple[str, str]]:
    """(where, text) of every string constant in the package sources but docstrings (and this check's own
    patterns in harness/_doc_refs.py and the `docs` command), f-string parts included."""
    found: list[tuple[str, str]] = []
    for folder in SOURCES:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path.name in ("_doc_refs.py", "_docs_command.py", "_docs.py"):
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                          if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
                          and node.body and isinstance(node.body[0], ast.Expr)
                          and isinstance(node.body[0].value, ast.Constant)}
            found += [(f"{path.relative_to(ROOT)}:{node.lineno}", node.value) for node in ast.walk(tree)
                      if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings]
    return found


def _resolves(command: str, capsys: pytest.CaptureFixture[str]) -> bool:
    code = main(command.split(" ", 1)[0:1] + command.split(" ", 1)[1:])
    out, err = capsys.readouterr()
    return code == 0 and out.strip() != "" and err == ""


def test_every_reference_a_message_or_rule_can_carry_is_a_command_that_resolves(
    capsys: pytest.CaptureFixture[str]
) -> None:
    """Spelled for the terminal, no string of the sources (the judge's findings, the errors, the helps) and no rule
    of the catalogue cites a repository path, and each command they cite prints something."""
    texts = [*_message_strings(), *((f"rules.json {r.id}", f"{r.spec} {r.fix} {r.statement}") for r in CATALOGUE)]
    left = [(where, m.group(0)) for where, text in texts
            for m in REPOSITORY_PATH.finditer(terminal_refs(text))
            if not re.search(r"https?://\S*$", terminal_refs(text)[: m.start()])]  # a URL is not a repository path
    allowed = [(w, p) for w, p in left if w.startswith("harness/scenario/_faults.py")]  # a developer's KeyError
    assert [x for x in left if x not in allowed] == []
    commands = sorted({m.group(1) for _, text in texts for m in COMMAND.finditer(terminal_refs(text))})
    assert "docs contracts#7.8" in commands and "docs adapters#layers" in commands, commands
    assert [c for c in commands if not _resolves(c, capsys)] == []


def test_a_reference_to_a_file_callproof_does_not_ship_is_left_as_it_is() -> None:
    """Findings quote what an IUT sent, which may name documents of its own."""
    assert terminal_refs("see docs/setup.md, docs/spec/contracts.md §7.8 and schemas/mine.schema.json") == (
        "see docs/setup.md, `callproof docs contracts#7.8` and schemas/mine.schema.json")
    assert terminal_refs("https://github.com/o/r/blob/main/docs/cli.md#x") == \
        "https://github.com/o/r/blob/main/docs/cli.md#x"


def test_the_topics_are_listed_with_their_titles(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["docs"]) == 0
    rows = {line.split()[0]: line.split(None, 1)[1] for line in capsys.readouterr().out.splitlines()}
    assert rows["contracts"] == "callproof contracts" and rows["cli"] == "The `callproof` command line"
    assert rows["scenario-format"] == "Scenarios" and rows["scenario-schema"] == "Scenario file"
    assert {"spec", "rules", "mock", "adapters", "verdicts", "report-schema"} <= rows.keys()
    assert sorted(rows) == list(rows)


@pytest.mark.parametrize(("argv", "first"), [
    (["contracts#7.8"], "### 7.8 Gateway (sandwich) rules"),
    (["contracts", "7.8"], "### 7.8 Gateway (sandwich) rules"),
    (["contracts", "§7.8.1"], "#### 7.8.1 Error bodies never echo credentials"),
    (["docs/spec/contracts.md §7.8"], "### 7.8 Gateway (sandwich) rules"),
    (["docs/adapters.md#layers"], "## Layers"),
    (["adapters#LAYERS"], "## Layers"),
    (["mock#the-callproof_mock-fixture"], "## The `callproof_mock` fixture"),
    (["rules#GW-ARGS-001"], "### GW-ARGS-001"),
    (["cli"], "# The `callproof` command line"),
    (["spec"], "# callproof specification documents"),
    (["scenario-format"], "# Scenarios"),
    (["scenarios/README.md"], "# Scenarios"),
    (["scenario-schema#fault"], "{"),
    (["schemas/scenario.schema.json"], "{"),
], ids=" ".join)
def test_a_topic_or_one_section_is_printed(argv: list[str], first: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["docs", *argv]) == 0
    assert capsys.readouterr().out.splitlines()[0] == first


def test_a_section_ends_where_the_next_one_of_its_level_begins(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["docs", "contracts#7.8"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "#### 7.8.1 Error bodies never echo credentials" in lines
    assert not any(line.startswith("### 7.9") for line in lines)


def test_path_prints_where_the_file_is(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["docs", "contracts", "--path"]) == 0
    path = Path(capsys.readouterr().out.strip())
    assert path.name == "contracts.md" and path.read_text(encoding="utf-8").startswith("# callproof contracts")


@pytest.mark.parametrize(("argv", "line"), [
    (["contract"], "no topic 'contract'; did you mean contracts? (`callproof docs` lists them)"),
    (["contracts#7.99"], "contracts has no section '7.99'; did you mean 7.9? (`callproof docs contracts` prints it "
                         "whole)"),
    (["adapters#layer"], "adapters has no section 'layer'; did you mean layers? (`callproof docs adapters` prints it "
                         "whole)"),
    (["scenario-schema#faults"], "scenario-schema has no definition 'faults'; did you mean fault? (`callproof docs "
                                 "scenario-schema` prints it whole)"),
])
def test_an_unknown_topic_or_section_is_one_line(argv: list[str], line: str,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["docs", *argv]) == 2
    assert capsys.readouterr() == ("", f"callproof docs: {line}\n")


def test_rules_by_id_print_each_rule_in_full(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "gw-args-001", "SSE-001"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("### GW-ARGS-001\n") and "\n### SSE-001\n" in out
    assert "- **Spec**: `callproof docs contracts#7.8` (what the upstream streamed" in out and "docs/" not in out
    assert main(["rules", "GW-ARGS-001", "--format", "json"]) == 0
    [row] = json.loads(capsys.readouterr().out)
    assert row["spec"].startswith("docs/spec/contracts.md §7.8")  # data for tools: as the catalogue says it


def test_an_unknown_rule_id_is_one_line_with_the_nearest(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rules", "GW-ARG-001"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("callproof rules: no rule 'GW-ARG-001'; did you mean GW-ARGS-001")
    assert err.endswith("(`callproof rules` lists them)\n")


def test_check_cites_the_rule_and_spec_as_commands(capsys: pytest.CaptureFixture[str]) -> None:
    capture = next((ROOT / "examples" / "captures" / "responses" / "openai" / "broken").glob("RSP-ARGS-001--*.sse"))
    assert main(["check", str(capture)]) == 1
    out = capsys.readouterr().out
    spec = next(line for line in out.splitlines() if line.strip().startswith("spec: "))
    assert spec.endswith("(more: `callproof rules RSP-ARGS-001`)") and "`callproof docs responses#2.1`" in spec
    assert "docs/" not in out
