"""The lock (constraints.txt, tests/lockfile.py) against pyproject.toml, offline: every requirement of the base
dependencies and of the `dev` and `interop` extras has a pin, each pin is within its range, and the lock holds
nothing but pins (no index, no find-links, no path of the machine that wrote it). Doctored copies show each check
fails."""

from __future__ import annotations

import re

import pytest
from packaging.utils import canonicalize_name

from tests.lockfile import LOCK, pins, problems, pyproject, requirements

TEXT = LOCK.read_text(encoding="utf-8")
PROJECT = pyproject()


def test_the_lock_pins_every_requirement_within_its_range() -> None:
    assert problems(TEXT, PROJECT) == []


def test_the_lock_covers_the_base_and_both_extras() -> None:
    names = {canonicalize_name(r.name) for r in requirements(PROJECT)}
    assert {"websockets", "starlette", "mypy", "pip-tools", "openai-agents"} <= names
    assert names <= set(pins(TEXT))


def _replace(pattern: str, new: str) -> str:
    doctored, count = re.subn(pattern, new, TEXT, count=1, flags=re.MULTILINE)
    assert count == 1, pattern
    return doctored


@pytest.mark.parametrize(("doctored", "expected"), [
    (_replace(r"^websockets==.*\n", ""), "websockets>=15 (pyproject.toml) has no pin in the lock"),
    (_replace(r"^websockets==.*$", "websockets==14.2"), "websockets==14.2 is outside pyproject.toml's websockets>=15"),
    (_replace(r"^openai==.*$", "openai==3.55.0"), "openai==3.55.0 is outside pyproject.toml's openai==3.54.0"),
    ("--extra-index-url file:///opt/pypi/simple\n" + TEXT, "line 1 holds a path or URL of the machine"),
    ("--find-links /opt/wheels\n" + TEXT, "line 1 is not a name==version pin (--find-links /opt/wheels)"),
    (TEXT + "-e file:///work/callproof\n", "is not a name==version pin (-e file:///work/callproof)"),
    (TEXT + "uvicorn[standard]==0.30.0\n", "is not a name==version pin (uvicorn[standard]==0.30.0)"),
    (TEXT + "httpx>=0.27\n", "is not a name==version pin (httpx>=0.27)"),
    (TEXT + "orjson==3.10.0\n", "pins orjson a second time"),
    (TEXT + "    # via /home/someone/requirements.in\n", "holds a path or URL of the machine"),
    ("\n".join(line for line in TEXT.splitlines() if not line.startswith("# ")), "does not say how it is made"),
], ids=["missing", "below-range", "off-exact-pin", "index", "find-links", "editable", "extras", "range", "twice",
        "path-in-comment", "no-header"])
def test_a_doctored_lock_fails(doctored: str, expected: str) -> None:
    assert any(expected in problem for problem in problems(doctored, PROJECT)), problems(doctored, PROJECT)


def test_pins_refuses_what_is_not_a_pin() -> None:
    assert pins("# a comment\n\nh11==0.16.0\n    # via httpx\n") == {"h11": "0.16.0"}
    with pytest.raises(ValueError, match="line 1 of the lock is not a name==version pin: --index-url"):
        pins("--index-url https://example.org/simple\n")
