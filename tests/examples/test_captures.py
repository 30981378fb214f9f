"""The bundled example captures (examples/captures/), described as data: one manifest per capture set
(examples/captures/<front>/<profile>/manifest.json, validated by examples/captures/manifest.schema.json) lists every
capture file, whether it is ok or broken, and the rules a broken one must fail. Every file is listed exactly once,
every ok capture passes every rule, every broken one fails exactly the rules its manifest names, and every stream
rule of the catalogue has a broken capture."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, cast

import jsonschema
import pytest

from callproof.harness import RULES, CheckReport, Dialect, check_body, check_bytes
from callproof.harness.catalogue import STREAM_RULES, Profile
from callproof.harness.check import check_websocket_transcript

CAPTURES = Path(__file__).resolve().parents[2] / "examples" / "captures"
SCHEMA_FILE = CAPTURES / "manifest.schema.json"
SCHEMA: dict[str, Any] = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
MANIFESTS = sorted(CAPTURES.glob("*/*/manifest.json"))
CASES_FILE = Path(__file__).resolve().parent / "data" / "manifest_cases.json"
CASES_SCHEMA = Path(__file__).resolve().parents[1] / "schema_cases.schema.json"
CASES: list[dict[str, Any]] = json.loads(CASES_FILE.read_text(encoding="utf-8"))

Kind = Literal["ok", "broken"]


@dataclass(frozen=True, slots=True)
class Capture:
    """One capture file as its manifest lists it."""

    path: Path
    manifest: Path
    front: Dialect
    profile: Profile
    kind: Kind
    fails: tuple[str, ...]
    description: str

    @property
    def id(self) -> str:
        """`responses/openai/broken/RSP-SEQ-003--gap`."""
        return self.path.relative_to(CAPTURES).with_suffix("").as_posix()


def _read(manifest: Path) -> dict[str, Any]:
    return cast(dict[str, Any], json.loads(manifest.read_text(encoding="utf-8")))


def _captures(manifest: Path) -> list[Capture]:
    doc = _read(manifest)
    return [
        Capture(
            path=manifest.parent / entry["file"],
            manifest=manifest,
            front=doc["front"],
            profile=doc["profile"],
            kind=entry["kind"],
            fails=tuple(entry["fails"]),
            description=entry["description"],
        )
        for entry in doc["captures"]
    ]


def _capture_files() -> list[Path]:
    """Every file under examples/captures/ but the manifests and their schema."""
    return sorted(
        p for p in CAPTURES.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.name != "manifest.json" and p != SCHEMA_FILE
    )


ALL = [c for m in MANIFESTS for c in _captures(m)]
OK = [c for c in ALL if c.kind == "ok"]
BROKEN = [c for c in ALL if c.kind == "broken"]
#: Every ok capture under its own profile, and under each profile its manifest's `ok_also_pass_under` names.
OK_RUNS = [
    *(pytest.param(c, c.profile, id=c.id) for c in OK),
    *(
        pytest.param(c, profile, id=f"{c.id}@{profile}")
        for c in OK
        for profile in _read(c.manifest).get("ok_also_pass_under", [])
    ),
]


def _check(capture: Capture, profile: Profile) -> CheckReport:
    data = capture.path.read_bytes()
    if capture.path.suffix == ".json":
        return check_body(data, front=capture.front, profile=profile)
    if capture.path.suffix == ".jsonl":  # a WebSocket transcript (docs/spec/websocket.md §7.8)
        return check_websocket_transcript(data, profile=profile)
    return check_bytes(data, front=capture.front, profile=profile)


def _describe(report: CheckReport) -> str:
    lines = [f"failed rules: {report.failed_rules}"]
    for result in report.failed:
        for violation in result.violations:
            lines.append(f"  {result.rule.id}: {violation.message} [{violation.evidence.describe()}]")
    return "\n".join(lines)


# -- the manifest schema ---------------------------------------------------------------------------------------
def test_manifest_schema_is_valid_draft_2020_12() -> None:
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


def test_manifest_schema_cases_are_valid() -> None:
    jsonschema.validate(CASES, json.loads(CASES_SCHEMA.read_text(encoding="utf-8")))
    assert {c["schema_ref"] for c in CASES} == {SCHEMA_FILE.name}
    assert {c["valid"] for c in CASES} == {True, False}, "the cases show the schema accepting and rejecting"


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["description"])
def test_manifest_schema_case(case: dict[str, Any]) -> None:
    errors = list(jsonschema.Draft202012Validator(SCHEMA).iter_errors(case["data"]))
    assert (errors == []) is case["valid"], [e.message for e in errors] or "accepted"


# -- the manifests -----------------------------------------------------------------------------------------------
def test_the_captures_are_found() -> None:
    assert len(MANIFESTS) == 5
    assert len(OK) >= 20 and len(BROKEN) >= len(STREAM_RULES)


@pytest.mark.parametrize("manifest", MANIFESTS, ids=lambda p: p.parent.relative_to(CAPTURES).as_posix())
def test_manifest_is_valid_and_in_its_directory(manifest: Path) -> None:
    doc = _read(manifest)
    jsonschema.validate(doc, SCHEMA)
    assert manifest.parent.relative_to(CAPTURES).parts == (doc["front"], doc["profile"])
    assert any(entry["kind"] == "ok" for entry in doc["captures"]), "every capture set has ok captures"


def test_every_capture_file_is_listed_exactly_once() -> None:
    listed = Counter(c.path for c in ALL)
    twice = sorted(p.relative_to(CAPTURES).as_posix() for p, n in listed.items() if n > 1)
    assert twice == []
    unlisted = sorted(p.relative_to(CAPTURES).as_posix() for p in _capture_files() if p not in listed)
    assert unlisted == [], "add these files to their manifest.json"


@pytest.mark.parametrize("capture", ALL, ids=lambda c: c.id)
def test_listed_capture_exists_and_its_rules_apply(capture: Capture) -> None:
    assert capture.path.is_file(), f"{capture.id}: listed in {capture.manifest.name} but missing"
    for rule_id in capture.fails:
        rule = RULES.get(rule_id)
        assert rule is not None, f"{rule_id} is not a rule of the catalogue"
        assert rule.applies(capture.front, capture.profile), (
            f"{rule.id} does not apply to front {capture.front} under profile {capture.profile}"
        )
    if capture.kind == "broken":
        assert capture.path.stem.split("--")[0] in capture.fails, "a broken file name starts with a rule it fails"


# -- the captures against the checker ----------------------------------------------------------------------------
@pytest.mark.parametrize(("capture", "profile"), OK_RUNS)
def test_ok_capture_passes_every_rule(capture: Capture, profile: Profile) -> None:
    report = _check(capture, profile)
    assert report.failed_rules == (), _describe(report)


@pytest.mark.parametrize("capture", BROKEN, ids=lambda c: c.id)
def test_broken_capture_fails_exactly_its_rules(capture: Capture) -> None:
    report = _check(capture, capture.profile)
    assert sorted(report.failed_rules) == sorted(capture.fails), _describe(report)
    for result in report.failed:
        assert result.outcome == "failed" and result.violations
        for violation in result.violations:
            assert violation.rule == result.rule.id
            assert violation.message.strip(), "a violation without a message"
            assert violation.evidence.to_json(), f"no evidence for {violation.message!r}"


#: Rules shown failing by a test elsewhere instead of a bundled capture, with the reason.
ELSEWHERE = {
    "SSE-006": "needs an event over 32 MiB; tests/harness/check/test_check.py builds one in memory",
}


def test_every_stream_rule_has_a_broken_capture() -> None:
    """Harness rules (families 7-9) are shown failing by the broken fakes (tests/harness/run/test_mutations.py)."""
    covered = {rule for c in BROKEN for rule in c.fails} | set(ELSEWHERE)
    missing = [rule.id for rule in STREAM_RULES if rule.id not in covered]
    assert missing == [], f"rules without a broken capture: {', '.join(missing)}"
