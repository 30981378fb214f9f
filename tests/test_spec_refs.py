"""The spec lives in the repo: every `docs/spec/<file>.md §N` a rule, schema, scenario or doc cites names a file
and a numbered heading that exist, and nothing cites the design notes the repository does not ship."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from callproof.harness import CATALOGUE

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "docs" / "spec"
#: `docs/spec/chat.md §3.1, §3.2`: the file, then every § up to the next file named.
REFERENCE = re.compile(r"docs/spec/([a-z-]+\.md)((?:(?:(?!docs/spec/)[^\"|\n§]){0,120}?§\d+(?:\.\d+)*)*)")
SECTION = re.compile(r"§(\d+(?:\.\d+)*)")
HEADING = re.compile(r"^#{1,6} (\d+(?:\.\d+)*)[ .]", re.M)
OUTSIDE = re.compile(r"(?<![\w/.-])(wire-formats|design|perf-notes|style-anchors|peers)\.md\b")


def _tracked_text_files() -> list[Path]:
    names = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    return [ROOT / n for n in names if Path(n).suffix in {".py", ".json", ".md", ".jsonl", ".toml", ".yml", ".txt"}]


def _headings(name: str) -> set[str]:
    return set(HEADING.findall((SPEC / name).read_text(encoding="utf-8")))


def _references(text: str) -> list[tuple[str, str]]:
    return [(m.group(1), s) for m in REFERENCE.finditer(text) for s in SECTION.findall(m.group(2))]


def test_every_rule_cites_a_spec_section_in_the_repo() -> None:
    for rule in CATALOGUE:
        refs = _references(rule.spec)
        assert refs or "WHATWG" in rule.spec, f"{rule.id}: spec {rule.spec!r} cites no docs/spec/ section"
        for name, section in refs:
            assert (SPEC / name).is_file(), f"{rule.id}: docs/spec/{name} does not exist"
            assert section in _headings(name), f"{rule.id}: docs/spec/{name} has no heading §{section}"


def test_every_spec_reference_in_the_repo_resolves() -> None:
    problems: list[str] = []
    for path in _tracked_text_files():
        if path == Path(__file__).resolve():
            continue  # this file cites broken references on purpose (test_a_broken_reference_is_caught)
        text = path.read_text(encoding="utf-8", errors="replace")
        for name, section in _references(text):
            if not (SPEC / name).is_file():
                problems.append(f"{path.relative_to(ROOT)}: docs/spec/{name} does not exist")
            elif section not in _headings(name):
                problems.append(f"{path.relative_to(ROOT)}: docs/spec/{name} has no heading §{section}")
    assert not problems, "\n".join(problems)


def test_no_file_cites_documents_outside_the_repo() -> None:
    found = [f"{p.relative_to(ROOT)}: {m.group(0)}" for p in _tracked_text_files()
             for m in OUTSIDE.finditer(p.read_text(encoding="utf-8", errors="replace"))]
    assert not found, "\n".join(found)


@pytest.mark.parametrize("text", ["docs/spec/chat.md §9.9", "docs/spec/nowhere.md §1"])
def test_a_broken_reference_is_caught(text: str) -> None:
    ((name, section),) = _references(text)
    assert not (SPEC / name).is_file() or section not in _headings(name)
