"""The newest release of every dependency against the lock: `make drift`.

    python -m tests.drift [--venv out/drift-venv] [--python python3] [--timeout 3600] [--no-checks]

The lock (constraints.txt) fixes what `make test`, `make demo` and CI install; this shows what tomorrow's releases
do. It makes a fresh scratch venv, installs callproof there without its dependencies, then every requirement of
pyproject.toml (the base dependencies, the dev and the interop extras) by name, with no version and no constraint:
pip picks the newest releases that fit together. It runs what `make test` checks (ruff, lint-imports, mypy, the
whole pytest suite with -n auto) with them, and prints a table of what moved (package, locked, newest), each
dependency whose newest release could not be installed and why (another package's cap, or the release's own
requirements), and what failed. A held-back dependency that has tests of its own (websockets: the WebSocket tests)
is then installed at its newest release alone, and those tests run again. Every step is bounded (`--timeout` for
the pytest run). Exit status: 0 every check passed (versions may have moved: bump them on purpose with `make lock`),
1 a check failed, 2 the venv could not be made.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from tests.lockfile import LOCK, ROOT, pins, pyproject, requirements

__all__ = ["Check", "Release", "blockers", "held_back", "main", "moved"]

OUT = ROOT / "out" / "drift"
#: A held-back dependency's own tests, run again with its newest release alone.
ALONE: dict[str, tuple[str, ...]] = {
    "websockets": ("tests/harness/run/test_ws_front.py", "tests/harness/run/test_client_websocket.py",
                   "tests/mock_server/test_websocket.py", "tests/examples/test_gateway_websocket.py",
                   "tests/harness/cli/test_check_websocket.py"),
}
#: Bounds of the steps other than the pytest run (`--timeout`): a venv, an install, a lint or type check.
STEP_TIMEOUT = 1200.0
#: The failed tests listed by name; more are counted.
SHOWN_FAILURES = 40
#: Dumps the venv's distributions: name -> [version, requirements].
_LIST = ("import json, importlib.metadata as m; print(json.dumps({d.metadata['Name']: [d.version, d.requires or []] "
         "for d in m.distributions() if d.metadata['Name']}))")


@dataclass(frozen=True, slots=True)
class Release:
    """One release of a distribution: its version and its requirements (Requires-Dist)."""

    version: str
    requires: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Check:
    """One check run with the newest releases, and the tests that failed in it (pytest's)."""

    name: str
    passed: bool
    note: str = ""
    failures: tuple[str, ...] = ()


def _applies(requirement: Requirement) -> bool:
    """A requirement of an installed distribution that is in force: its marker holds with no extra requested."""
    return requirement.marker is None or requirement.marker.evaluate({"extra": ""})


def _requirements(release: Release) -> list[Requirement]:
    found = []
    for text in release.requires:
        try:
            requirement = Requirement(text)
        except InvalidRequirement:
            continue
        if _applies(requirement):
            found.append(requirement)
    return found


def _unmet(release: Release, installed: Mapping[str, Release]) -> list[Requirement]:
    """The requirements of `release` that the installed versions fail."""
    return [r for r in _requirements(release) if canonicalize_name(r.name) in installed and
            not r.specifier.contains(installed[canonicalize_name(r.name)].version, prereleases=True)]


def blockers(newest: Mapping[str, Release], installed: Mapping[str, Release]) -> set[str]:
    """The installed dependencies whose version a newest release that could not be installed does not accept."""
    return {canonicalize_name(r.name) for name, release in newest.items() for r in _unmet(release, installed)
            if name not in installed or Version(installed[name].version) < Version(release.version)}


def _capped_by(name: str, version: str, installed: Mapping[str, Release]) -> list[str]:
    """The installed packages whose requirement on `name` excludes `version`."""
    return [f"{other} {its.version} requires {requirement}" for other, its in sorted(installed.items()) if other != name
            for requirement in _requirements(its) if canonicalize_name(requirement.name) == name and
            not requirement.specifier.contains(version, prereleases=True)]


def held_back(newest: Mapping[str, Release], installed: Mapping[str, Release],
              latest: Mapping[str, Release] | None = None) -> dict[str, list[str]]:
    """Each dependency (by canonical name) installed below its newest release, with why: an installed package whose
    requirement excludes the newest release, or a requirement of the newest release that the installed version of
    a dependency fails (because no release of that dependency matches yet, or because another package caps it;
    `latest` holds those dependencies' newest releases)."""
    latest = latest or {}
    found: dict[str, list[str]] = {}
    for name, release in sorted(newest.items()):
        have = installed.get(name)
        if have is not None and Version(have.version) >= Version(release.version):
            continue
        reasons = _capped_by(name, release.version, installed)
        for requirement in _unmet(release, installed):
            dependency = canonicalize_name(requirement.name)
            reason = f"{name} {release.version} requires {requirement}, {dependency} {installed[dependency].version} " \
                     "is installed"
            top = latest.get(dependency)
            if top is not None and not requirement.specifier.contains(top.version, prereleases=True):
                reason += f" and no release matches yet (the newest is {top.version})"
            elif top is not None and _capped_by(dependency, top.version, installed):
                reason += f", held by {'; '.join(_capped_by(dependency, top.version, installed))}"
            reasons.append(reason)
        if not reasons:
            reasons.append("no installed requirement excludes it: pip's resolver chose an older release")
        found[name] = reasons
    return found


def moved(locked: Mapping[str, str], installed: Mapping[str, Release]) -> list[tuple[str, str, str]]:
    """(package, locked version, newest installed version) for each package whose version differs, "-" where the
    lock or the venv has none, in name order."""
    names = sorted(set(locked) | set(installed))
    rows = [(name, locked.get(name, "-"), installed[name].version if name in installed else "-") for name in names]
    return [row for row in rows if row[1] != row[2]]


def _run(command: Sequence[str], timeout: float, env: Mapping[str, str] | None = None,
         quiet: bool = False) -> tuple[int | None, str]:
    """Run `command` in its own session from the checkout's root; (exit code or None on timeout, its stdout when
    `quiet`). On the timeout its whole process group is killed."""
    process = subprocess.Popen(command, cwd=ROOT, env=env, start_new_session=True, text=True,
                               stdout=subprocess.PIPE if quiet else None)
    try:
        out, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        return None, ""
    except BaseException:  # Ctrl-C, SIGTERM (`_terminated`): stop what it started
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        raise
    return process.returncode, out or ""


def _distributions(python: Path, env: Mapping[str, str]) -> dict[str, Release]:
    code, out = _run([str(python), "-c", _LIST], STEP_TIMEOUT, env, quiet=True)
    if code != 0:
        raise RuntimeError("the drift venv's distributions could not be listed")
    return {canonicalize_name(name): Release(version, tuple(requires))
            for name, (version, requires) in json.loads(out).items()}


def _newest(python: Path, names: Sequence[str], env: Mapping[str, str]) -> dict[str, Release]:
    """The newest release of each name pip can install on the venv's Python, each alone (no dependencies)."""
    with tempfile.TemporaryDirectory() as scratch:
        report = Path(scratch) / "report.json"
        code, _ = _run([str(python), "-m", "pip", "install", "--quiet", "--dry-run", "--no-deps", "--ignore-installed",
                        "--report", str(report), *names], STEP_TIMEOUT, env)
        if code != 0:
            raise RuntimeError("pip could not find the newest release of every dependency (see above)")
        items = json.loads(report.read_text(encoding="utf-8"))["install"]
    return {canonicalize_name(item["metadata"]["name"]): Release(item["metadata"]["version"],
                                                               tuple(item["metadata"].get("requires_dist") or ()))
            for item in items}


def _failures(junit: Path) -> tuple[str, ...]:
    """The failed and errored tests of a JUnit XML file, as pytest node ids."""
    if not junit.is_file():
        return ()
    failed = []
    for case in ET.parse(junit).getroot().iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            path = (case.get("classname") or "").replace(".", "/")
            failed.append(f"{path}.py::{case.get('name')}" if path else str(case.get("name")))
    return tuple(failed)


def _pytest(name: str, python: Path, args: Sequence[str], timeout: float, env: Mapping[str, str]) -> Check:
    junit = OUT / f"{name.split()[0]}.xml"
    junit.unlink(missing_ok=True)
    print(f"\n== make drift: {name}", flush=True)
    code, _ = _run([str(python), "-m", "pytest", "-n", "auto", "-q", "-p", "no:cacheprovider", f"--junitxml={junit}",
                    *args], timeout, env)
    failures = _failures(junit)
    if code is None:
        return Check(name, False, f"killed after {timeout:g} s", failures)
    if code not in (0, 1):
        return Check(name, False, f"pytest exited {code}", failures)
    return Check(name, code == 0, f"{len(failures)} failed" if failures else "", failures)


def _checks(venv: Path, timeout: float, env: Mapping[str, str]) -> list[Check]:
    """What `make test` checks, with the venv's tools."""
    bin_dir = venv / "bin"
    mypy = [str(bin_dir / "mypy"), "--cache-dir", str(OUT / "mypy-cache")]
    steps = [
        ("ruff", [str(bin_dir / "ruff"), "check", "--no-cache", "."], env),
        ("lint-imports", [str(bin_dir / "lint-imports"), "--no-cache"],
         {**env, "PYTHONPATH": str(ROOT / ".venv" / "mypy-src")}),
        ("mypy (packages)", [*mypy, "-p", "callproof.harness", "-p", "callproof.mock_server", "-p",
                             "callproof.reports"], env),
        ("mypy (tests, bench, examples, interop)", [*mypy, "tests", "bench", "examples", "interop"], env),
    ]
    checks = []
    for name, command, step_env in steps:
        print(f"\n== make drift: {name}", flush=True)
        code, _ = _run(command, STEP_TIMEOUT, step_env)
        checks.append(Check(name, code == 0, "" if code is not None else f"killed after {STEP_TIMEOUT:g} s"))
    checks.append(_pytest("pytest (the whole suite)", bin_dir / "python", [], timeout, env))
    return checks


def _alone(venv: Path, held: Mapping[str, list[str]], newest: Mapping[str, Release], timeout: float,
           env: Mapping[str, str]) -> list[Check]:
    """Each held-back dependency with tests of its own at its newest release alone (its cap ignored), then those."""
    checks = []
    python = venv / "bin" / "python"
    for name in sorted(set(held) & set(ALONE)):
        version = newest[name].version
        label = f"{name} {version} alone ({len(ALONE[name])} test files)"
        print(f"\n== make drift: {name} {version}, held back in the full set, installed alone (pip may say what it "
              "breaks)", flush=True)
        code, _ = _run([str(python), "-m", "pip", "install", "--quiet", "--no-deps", f"{name}=={version}"],
                       STEP_TIMEOUT, env)
        checks.append(_pytest(label, python, ALONE[name], timeout, env) if code == 0 else
                      Check(label, False, f"pip could not install {name}=={version}"))
    return checks


def _table(rows: Sequence[tuple[str, str, str]], held: Mapping[str, list[str]],
           newest: Mapping[str, Release]) -> list[str]:
    width = max([len("package"), *(len(name) for name, _, _ in rows)])
    lines = [f"  {'package':<{width}}  {'locked':<12}  newest"]
    for name, was, now in rows:
        note = f"  (held back: {newest[name].version} exists)" if name in held else \
            "  (lower: a newer release of another package caps it)" if "-" not in (was, now) and \
            Version(now) < Version(was) else ""
        lines.append(f"  {name:<{width}}  {was:<12}  {now}{note}")
    return lines


def _report(rows: Sequence[tuple[str, str, str]], held: Mapping[str, list[str]], newest: Mapping[str, Release],
            checks: Sequence[Check], installed: Mapping[str, Release], venv: Path) -> bool:
    """Print what moved, what was held back, what failed; True when every check passed."""
    print(f"\n== make drift: the newest releases ({venv}) against the lock ({LOCK.name})")
    if rows:
        print(f"{len(rows)} packages moved:")
        print("\n".join(_table(rows, held, newest)))
    else:
        print("nothing moved: the lock pins the newest releases")
    for name, reasons in held.items():
        have = installed[name].version if name in installed else "none"
        print(f"not installed at its newest release: {name} {newest[name].version} ({have} installed): "
              + "; ".join(reasons))
    outside = sorted({str(r) for r in requirements(pyproject()) if canonicalize_name(r.name) in installed and
                      not r.specifier.contains(installed[canonicalize_name(r.name)].version, prereleases=True)})
    states = [f"{c.name} {'passed' if c.passed else 'FAILED'}" + (f" ({c.note})" if c.note else "") for c in checks]
    print("checks: " + ", ".join(states) if checks else "checks: none run (--no-checks)")
    for check in checks:
        if check.failures:
            print(f"failed in {check.name}:")
            print("\n".join(f"  {test}" for test in check.failures[:SHOWN_FAILURES]))
            if len(check.failures) > SHOWN_FAILURES:
                print(f"  ... and {len(check.failures) - SHOWN_FAILURES} more (out/drift/*.xml)")
    passed = all(c.passed for c in checks)
    if rows:
        widen = f" (outside pyproject.toml's ranges, widen first: {', '.join(outside)})" if outside else ""
        fix = "" if passed else " after fixing what failed"
        print(f"make drift: {len(rows)} packages moved: bump with make lock{fix}{widen}")
    if checks:
        print(f"make drift: {'every check passed' if passed else 'a check failed'} with the newest releases")
    return passed


def _terminated(signum: int, frame: object) -> None:
    """SIGTERM (and SIGINT, also where the shell started this in the background with it ignored) ends the run
    through `_run`'s handler, which kills the step's process group: a pytest session is not left behind."""
    raise SystemExit(128 + signum)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.drift", description=__doc__.splitlines()[0])
    parser.add_argument("--venv", type=Path, default=ROOT / "out" / "drift-venv", help="the scratch venv, made anew")
    parser.add_argument("--python", default=sys.executable, help="the Python of the venv (default: this one)")
    parser.add_argument("--timeout", type=float, default=3600.0,
                        help="seconds before a pytest run is killed and fails (default 3600)")
    parser.add_argument("--no-checks", action="store_true",
                        help="only install and report what moved and what is held back; run no check")
    options = parser.parse_args(argv)
    venv = options.venv if options.venv.is_absolute() else ROOT / options.venv
    python = venv / "bin" / "python"
    base = shutil.which(options.python) or options.python  # found before the venv's bin/ leads PATH
    env = {key: value for key, value in os.environ.items() if key not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    names = sorted({r.name + (f"[{','.join(sorted(r.extras))}]" if r.extras else "")
                    for r in requirements(pyproject())})
    OUT.mkdir(parents=True, exist_ok=True)
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, _terminated)
    began = time.monotonic()
    print(f"== make drift: a fresh {venv} with the newest release of {len(names)} dependencies: {' '.join(names)}",
          flush=True)
    if venv.exists() and not (venv / "pyvenv.cfg").is_file() and any(venv.iterdir()):
        print(f"make drift: {venv} is not a venv: give the scratch venv another path (--venv)", file=sys.stderr)
        return 2
    shutil.rmtree(venv, ignore_errors=True)  # anew: nothing of an earlier run (or a broken one) stays
    for step in ([base, "-m", "venv", str(venv)],
                 [str(python), "-m", "pip", "install", "--quiet", "--upgrade", "pip"],
                 [str(python), "-m", "pip", "install", "--quiet", "--no-deps", "-e", "."],
                 [str(python), "-m", "pip", "install", "--quiet", "--upgrade", *names]):
        code, _ = _run(step, STEP_TIMEOUT, env)
        if code != 0:
            print(f"make drift: {' '.join(step[:6])} ... {'timed out' if code is None else f'exited {code}'}: the "
                  "newest releases could not be installed (see above)", file=sys.stderr)
            return 2
    try:
        installed = _distributions(python, env)
        installed.pop("callproof", None)
        newest = _newest(python, names, env)
        behind = sorted(blockers(newest, installed) - set(newest))
        latest = {**newest, **(_newest(python, behind, env) if behind else {})}
    except RuntimeError as exc:
        print(f"make drift: {exc}", file=sys.stderr)
        return 2
    held = held_back(newest, installed, latest)
    rows = moved(pins(LOCK.read_text(encoding="utf-8")), installed)
    checks = [] if options.no_checks else _checks(venv, options.timeout, env)
    if not options.no_checks:
        checks += _alone(venv, held, newest, options.timeout, env)
    passed = _report(rows, held, newest, checks, installed, venv)
    print(f"make drift: {time.monotonic() - began:.0f} s")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
