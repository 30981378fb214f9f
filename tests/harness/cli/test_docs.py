"""docs/rules.md as `make docs` writes it from the catalogue (harness/cli/_docs.py): a section per rule, headed by its
id, in family order, where reports link (`rule.anchor`)."""

from __future__ import annotations

import re

from callproof.harness import CATALOGUE
from callproof.harness.catalogue import FAMILIES
from callproof.harness.cli._docs import rules_document


def test_every_rule_has_a_section_anchored_by_its_id() -> None:
    """docs/rules.md has a `### <id>` heading per rule: GitHub's slug of it is `rule.anchor`, where reports link."""
    headings = re.findall(r"^### (\S+)$", rules_document(), flags=re.MULTILINE)
    assert headings == [rule.id for rule in sorted(CATALOGUE, key=lambda r: FAMILIES.index(r.family))]
    assert all(rule.anchor == rule.id.lower() for rule in CATALOGUE)


def test_rules_document_has_a_section_per_rule() -> None:
    text = rules_document()
    assert all(f"\n### {rule.id}\n" in text for rule in CATALOGUE)
