"""The lock, constraints.txt: the exact versions this repository installs and tests (`make venv`, `make test`,
`make demo`, CI through make, the GitHub Action), as pip's constraints file, written by `make lock` (pip-compile,
from pyproject.toml's ranges of the base and the `dev` and `interop` extras, for Python 3.11).

`pins` reads it, `requirements` lists what it must cover, `problems` says where it falls short: a requirement with
no pin, a pin outside its range, anything but a `name==version` line (an index, a find-links, an editable), a path
or a URL of the machine that wrote it. tests/test_lock.py holds the lock to it; tests/drift.py compares the newest
releases with the pins.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

__all__ = ["EXTRAS", "LOCK", "PYPROJECT", "PYTHON", "pins", "problems", "pyproject", "requirements"]

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "constraints.txt"
PYPROJECT = ROOT / "pyproject.toml"
#: The extras the lock covers besides the base dependencies, and the Python it is resolved for.
EXTRAS = ("dev", "interop")
PYTHON = "3.11"

#: A path or a URL of the machine: an absolute path, a file: or any other URL.
_MACHINE = re.compile(r"(?:^|[\s=(])/[\w.~-]|\bfile:/|://")


def pyproject(path: Path = PYPROJECT) -> dict[str, Any]:
    with path.open("rb") as file:
        return tomllib.load(file)


def requirements(project: Mapping[str, Any]) -> list[Requirement]:
    """The base dependencies and those of the locked extras that apply on the lock's Python, in file order."""
    table = project["project"]
    declared = [*table["dependencies"], *(r for extra in EXTRAS for r in table["optional-dependencies"][extra])]
    environment = {"python_version": PYTHON, "python_full_version": f"{PYTHON}.0", "extra": ""}
    found = [Requirement(text) for text in declared]
    return [r for r in found if r.marker is None or r.marker.evaluate(environment)]


def _pin(line: str) -> tuple[str, str] | None:
    """(canonical name, version) of a `name==version` line; None for anything else."""
    try:
        requirement = Requirement(line)
    except InvalidRequirement:
        return None
    specs = list(requirement.specifier)
    if requirement.url or requirement.marker or requirement.extras or len(specs) != 1 or specs[0].operator != "==":
        return None
    return canonicalize_name(requirement.name), specs[0].version


def pins(text: str) -> dict[str, str]:
    """The lock's pins by canonical name; comment and blank lines skipped, anything else a ValueError."""
    found: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        pin = _pin(line)
        if pin is None:
            raise ValueError(f"line {number} of the lock is not a name==version pin: {line}")
        found[pin[0]] = pin[1]
    return found


def problems(text: str, project: Mapping[str, Any]) -> list[str]:
    """What is wrong with the lock `text` for `project` (an empty list: nothing), one line each, with the fix."""
    found: list[str] = []
    locked: dict[str, str] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        if _MACHINE.search(raw):
            found.append(f"line {number} holds a path or URL of the machine that wrote it ({raw.strip()}): the "
                         "lock holds pins only; make lock writes none")
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        pin = _pin(line)
        if pin is None:
            found.append(f"line {number} is not a name==version pin ({line}): pip's constraints hold pins only; "
                         "make lock writes no option")
        elif pin[0] in locked:
            found.append(f"line {number} pins {pin[0]} a second time: rewrite the lock with make lock")
        else:
            locked[pin[0]] = pin[1]
    header = "\n".join(line for line in text.splitlines()[:12] if line.startswith("#"))
    if "make lock" not in header:
        found.append("the lock's header does not say how it is made (make lock): rewrite it with make lock")
    for requirement in requirements(project):
        name = canonicalize_name(requirement.name)
        version = locked.get(name)
        if version is None:
            found.append(f"{requirement} (pyproject.toml) has no pin in the lock: run make lock")
        elif not requirement.specifier.contains(version, prereleases=True):
            found.append(f"{name}=={version} is outside pyproject.toml's {requirement}: run make lock")
    return found
