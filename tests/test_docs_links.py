"""The documentation's relative links resolve: every `[text](path)` without a scheme in README.md and docs/**/*.md
points at a file or folder of the repository, and every `#anchor` into a Markdown file names one of its headings
(GitHub's slug) or an explicit `<a id>`; README.md stays an entry that starts with `make demo` and `make test`."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from callproof.harness import CATALOGUE

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
#: `[text](target)` or `[text](target "title")`; images too. Targets in code spans and fenced blocks are skipped.
LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
CODE_SPAN = re.compile(r"`[^`\n]*`")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)
HTML_ID = re.compile(r"""<a\s+(?:id|name)=["']([^"']+)["']""")


def _prose(text: str) -> str:
    return CODE_SPAN.sub("", FENCE.sub("", text))


def _links(path: Path) -> list[str]:
    return LINK.findall(_prose(path.read_text(encoding="utf-8")))


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, markup and punctuation dropped, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    text = re.sub(r"<[^>]+>", "", text).replace("`", "").lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every anchor a Markdown file offers: heading slugs (repeated ones numbered as GitHub does) and <a id>s."""
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    found: set[str] = set(HTML_ID.findall(text))
    seen: dict[str, int] = {}
    for heading in HEADING.findall(text):
        base = slug(heading)
        n = seen.get(base, 0)
        seen[base] = n + 1
        found.add(base if n == 0 else f"{base}-{n}")
    return found


def test_slug_matches_github() -> None:
    assert slug("`callproof run`") == "callproof-run"
    assert slug("The `callproof_mock` fixture") == "the-callproof_mock-fixture"
    assert slug("Use it in your own tests (pytest plugin)") == "use-it-in-your-own-tests-pytest-plugin"
    assert slug("9. client (6 rules)") == "9-client-6-rules"
    assert slug("RSP-ARGS-001") == "rsp-args-001"


def test_there_are_documents_with_links() -> None:
    assert ROOT / "docs" / "cli.md" in DOCUMENTS
    assert sum(len(_links(path)) for path in DOCUMENTS) > 50


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(document: Path) -> None:
    broken: list[str] = []
    for target in _links(document):
        if SCHEME.match(target):
            continue
        location, _, anchor = target.partition("#")
        path = (document.parent / location).resolve() if location else document
        if not path.exists():
            broken.append(f"{target}: no file {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
        elif anchor and path.suffix == ".md" and anchor not in anchors(path):
            broken.append(f"{target}: no heading or <a id> {anchor!r} in {path.relative_to(ROOT)}")
    assert broken == [], f"{document.relative_to(ROOT)}: broken links:\n" + "\n".join(broken)


def test_every_rule_has_an_anchor_in_docs_rules() -> None:
    """The Markdown report links `docs/rules.md#<rule.anchor>` (and `callproof rules ID` prints that section)."""
    offered = anchors(ROOT / "docs" / "rules.md")
    assert [rule.id for rule in CATALOGUE if rule.anchor not in offered] == []


def test_readme_is_an_entry() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.encode("utf-8")) <= 20_000, "README.md is an entry: at most 20 KB; move detail to docs/"
    first_block = readme[readme.index("```sh\n") + 6:]
    commands = [line.split("#")[0].strip() for line in first_block.splitlines() if line and not line[0].isspace()]
    assert commands[:2] == ["make demo", "make test"], "README.md starts with `make demo` and `make test`"
    assert readme.index("```sh\n") < readme.index("\n## "), "the make block comes before any section"
    assert "pip install callproof" not in readme, "callproof is on no package index"
