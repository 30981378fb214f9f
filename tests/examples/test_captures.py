"""The bundled example captures (examples/captures/): every ok capture passes every rule, every broken one
fails exactly the rule its file name gives, every rule of the catalogue has a broken capture, and the files
are what examples/captures/generate.py writes."""

from __future__ import annotations

import importlib.util
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import pytest

from callproof.harness import RULES, CheckReport, check_body, check_bytes
from callproof.harness.catalogue._catalogue import STREAM_RULES
from callproof.harness.catalogue._rule import Front, Profile

CAPTURES = Path(__file__).resolve().parents[2] / "examples" / "captures"
GENERATOR = CAPTURES / "generate.py"
#: The profile directories of each front (chat and anthropic are profile-independent: `openai` only).
PROFILE_DIRS: dict[str, tuple[str, ...]] = {
    "responses": ("openai", "open-responses", "lenient"),
    "chat": ("openai",),
    "anthropic": ("openai",),
}
SLUG = r"[a-z0-9]+(?:-[a-z0-9]+)*"
OK_NAME = re.compile(SLUG)
BROKEN_NAME = re.compile(rf"(?P<rule>[A-Z]+(?:-[A-Z]+)?-\d{{3}})--{SLUG}")
SUFFIXES = (".sse", ".json")


@dataclass(frozen=True, slots=True)
class Capture:
    """One file examples/captures/<front>/<profile>/<ok|broken>/<name>.<sse|json>."""

    path: Path
    front: Front
    profile: Profile
    kind: str

    @property
    def id(self) -> str:
        """`responses/openai/broken/RSP-SEQ-003--gap`."""
        return self.path.relative_to(CAPTURES).with_suffix("").as_posix()

    @property
    def rule(self) -> str:
        match = BROKEN_NAME.fullmatch(self.path.stem)
        assert match is not None, self.id
        return match["rule"]


def _capture_files() -> list[Path]:
    return sorted(p for p in CAPTURES.glob("*/*/*/*") if p.suffix in SUFFIXES)


def _parse(path: Path) -> Capture | None:
    """The capture at `path`, or None when its place or name is wrong (test_capture_file_names says why)."""
    front, profile, kind = path.relative_to(CAPTURES).parts[:3]
    if profile not in PROFILE_DIRS.get(front, ()) or kind not in ("ok", "broken"):
        return None
    pattern = OK_NAME if kind == "ok" else BROKEN_NAME
    if pattern.fullmatch(path.stem) is None:
        return None
    return Capture(path, cast(Front, front), cast(Profile, profile), kind)


ALL = [c for c in map(_parse, _capture_files()) if c is not None]
OK = [c for c in ALL if c.kind == "ok"]
BROKEN = [c for c in ALL if c.kind == "broken"]
#: Every ok capture under its own profile; OpenAI Responses ok captures also under `lenient`.
OK_RUNS = [
    *(pytest.param(c, c.profile, id=c.id) for c in OK),
    *(
        pytest.param(c, "lenient", id=f"{c.id}@lenient")
        for c in OK
        if (c.front, c.profile) == ("responses", "openai")
    ),
]


def _check(capture: Capture, profile: Profile) -> CheckReport:
    data = capture.path.read_bytes()
    if capture.path.suffix == ".json":
        return check_body(data, front=capture.front, profile=profile)
    return check_bytes(data, front=capture.front, profile=profile)


def _describe(report: CheckReport) -> str:
    lines = [f"failed rules: {report.failed_rules}"]
    for result in report.failed:
        for violation in result.violations:
            lines.append(f"  {result.rule.id}: {violation.message} [{violation.evidence.describe()}]")
    return "\n".join(lines)


def test_the_captures_are_found() -> None:
    assert len(OK) >= 20 and len(BROKEN) >= len(STREAM_RULES)


@pytest.mark.parametrize("path", _capture_files(), ids=lambda p: p.relative_to(CAPTURES).as_posix())
def test_capture_file_names(path: Path) -> None:
    front, profile, kind, name = path.relative_to(CAPTURES).parts
    assert front in PROFILE_DIRS, f"unknown front directory {front!r}"
    assert profile in PROFILE_DIRS[front], f"{front} has no profile directory {profile!r}"
    assert kind in ("ok", "broken"), f"{kind!r} is neither ok nor broken"
    if kind == "ok":
        assert OK_NAME.fullmatch(path.stem), f"{name!r} is not a lower-case slug"
        return
    match = BROKEN_NAME.fullmatch(path.stem)
    assert match is not None, f"{name!r} is not <RULE-ID>--<slug>"
    rule = RULES.get(match["rule"])
    assert rule is not None, f"{match['rule']} is not a rule of the catalogue"
    assert rule.applies(cast(Front, front), cast(Profile, profile)), (
        f"{rule.id} does not apply to front {front} under profile {profile}"
    )


def test_no_stray_files() -> None:
    stray = [
        p.relative_to(CAPTURES).as_posix()
        for p in CAPTURES.rglob("*")
        if p.is_file() and p != GENERATOR and "__pycache__" not in p.parts and p not in set(_capture_files())
    ]
    assert stray == []


@pytest.mark.parametrize(("front", "profile"), [(f, p) for f, ps in PROFILE_DIRS.items() for p in ps])
def test_every_profile_directory_has_ok_captures(front: str, profile: str) -> None:
    assert [c for c in OK if (c.front, c.profile) == (front, profile)]


@pytest.mark.parametrize(("capture", "profile"), OK_RUNS)
def test_ok_capture_passes_every_rule(capture: Capture, profile: Profile) -> None:
    report = _check(capture, profile)
    assert report.failed_rules == (), _describe(report)


@pytest.mark.parametrize("capture", BROKEN, ids=lambda c: c.id)
def test_broken_capture_fails_exactly_its_rule(capture: Capture) -> None:
    report = _check(capture, capture.profile)
    assert report.failed_rules == (capture.rule,), _describe(report)
    result = next(r for r in report.results if r.rule.id == capture.rule)
    assert result.outcome == "failed" and result.violations
    for violation in result.violations:
        assert violation.rule == capture.rule
        assert violation.message.strip(), "a violation without a message"
        assert violation.evidence.to_json(), f"no evidence for {violation.message!r}"


#: Rules shown failing by a test elsewhere instead of a bundled capture, with the reason.
ELSEWHERE = {
    "SSE-006": "needs an event over 32 MiB; tests/harness/check/test_check.py builds one in memory",
}


def test_every_stream_rule_has_a_broken_capture() -> None:
    """Harness rules (families 7-9) are shown failing by the broken fakes (tests/harness/run/test_mutations.py)."""
    covered = {c.rule for c in BROKEN} | set(ELSEWHERE)
    missing = [rule.id for rule in STREAM_RULES if rule.id not in covered]
    assert missing == [], f"rules without a broken capture: {', '.join(missing)}"


def test_the_generator_writes_exactly_the_bundled_captures(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("_captures_generate", GENERATOR)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    sys.dont_write_bytecode, saved = True, sys.dont_write_bytecode
    try:
        spec.loader.exec_module(module)
    finally:
        sys.dont_write_bytecode = saved
        del sys.modules[spec.name]
    written: list[Path] = module.generate(tmp_path)
    generated = {p.relative_to(tmp_path).as_posix() for p in written}
    bundled = {p.relative_to(CAPTURES).as_posix() for p in _capture_files()}
    assert sorted(generated ^ bundled) == [], "run `python examples/captures/generate.py`"
    stale = [n for n in sorted(generated) if (tmp_path / n).read_bytes() != (CAPTURES / n).read_bytes()]
    assert stale == [], "run `python examples/captures/generate.py`"
