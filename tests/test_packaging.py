"""The built wheel works with no checkout present: packages mapped into callproof.*, schemas and the docs
(`callproof docs`) shipped as data. And callproof installs with no index that has it, as README and
docs/tutorial.md say: the sdist and the wheel of `make dist` (setuptools' PEP 517 hooks, as the Makefile calls
them), each installed into a fresh venv (its dependencies from the configured index), run `callproof --version`,
`callproof check` on a capture, `callproof docs` and the bundled suite (`pytest --pyargs callproof.suite`) against
the example gateway installed with it (`python -m callproof.examples.gateway`), from outside the checkout."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from tests.fresh_venv import PIP_ENV, fresh_venv

#: Minutes of installing in fresh venvs whose module fixtures its tests share: collected first (tests/conftest.py).
pytestmark = pytest.mark.long

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`make dist`'s sdist, and the wheel built from that sdist (so the sdist is complete), with setuptools' PEP 517
    hooks as the Makefile calls them; from a copy of the checkout, so that parallel builds share no build/."""
    tree, out = tmp_path_factory.mktemp("tree") / "callproof", tmp_path_factory.mktemp("dist")
    shutil.copytree(ROOT, tree, ignore=shutil.ignore_patterns(
        ".git", ".venv", "out", "build", "dist", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis", "tests"))

    def build(hook: str, source: Path) -> None:
        code = "import sys; from setuptools import build_meta; getattr(build_meta, sys.argv[1])(sys.argv[2])"
        done = subprocess.run([sys.executable, "-c", code, hook, str(out)], cwd=source, capture_output=True,
                              text=True, check=False)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]

    build("build_sdist", tree)
    (sdist,) = out.glob("callproof-*.tar.gz")
    with tarfile.open(sdist) as archive:
        archive.extractall(tree.parent / "sdist", filter="data")
    build("build_wheel", tree.parent / "sdist" / sdist.name.removesuffix(".tar.gz"))
    return out


@pytest.fixture(scope="module")
def wheel(dist: Path) -> Path:
    (found,) = dist.glob("callproof-*.whl")
    return found


def test_wheel_holds_the_mapped_packages_and_data(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "callproof/harness/__init__.py" in names
    assert "callproof/harness/py.typed" in names
    assert "callproof/schemas/responses/events/response.function_call_arguments.delta.json" in names
    assert "callproof/schemas/fronts/responses.openai.json" in names
    # the examples the README and the tutorial run: the gateway, the client adapters, their baselines
    assert {"callproof/examples/gateway/__main__.py", "callproof/examples/gateway/fronts/responses.py",
            "callproof/examples/gateway/upstreams/chat.py", "callproof/examples/client_openai.py",
            "callproof/examples/baselines/openai-sdk.txt"} <= names
    # the documents the messages cite, as `callproof docs TOPIC` prints them (tests/harness/cli/test_docs_command.py)
    shipped = {f"callproof/docs/{p.relative_to(ROOT / 'docs').as_posix()}" for p in (ROOT / "docs").rglob("*.md")}
    assert {"callproof/docs/rules.md", "callproof/docs/spec/contracts.md", "callproof/scenarios/README.md",
            "callproof/schemas/scenario.schema.json"} <= names
    assert shipped <= names, sorted(shipped - names)
    assert not any(n.startswith(("tests/", "harness/", "conftest")) for n in names)
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    text = zipfile.ZipFile(wheel).read(entry_points).decode()
    assert "callproof = callproof.harness.cli:main" in text
    assert "callproof = callproof.harness.plugin" in text


def test_unpacked_wheel_checks_a_capture_without_the_checkout(wheel: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    capture = next((ROOT / "examples" / "captures" / "responses" / "openai" / "ok").glob("*.sse"))
    code = (
        "import sys, callproof.harness as h; "
        "assert h.__file__.startswith(sys.argv[1]), h.__file__; "
        "r = h.check_bytes(open(sys.argv[2], 'rb').read()); "
        "print(r.conformant, len(r.results))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(site), str(capture)],
        cwd=tmp_path, env={"PYTHONPATH": str(site)}, capture_output=True, text=True, check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("True ")


def _clean_env(venv: Path) -> dict[str, str]:
    """The environment of a user's shell with the venv activated: nothing of this test run or this checkout."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTEST_", "PYTHON", "VIRTUAL_ENV", "CALLPROOF_")) and k != "COV_CORE_SOURCE"}
    return env | {"VIRTUAL_ENV": str(venv), "PATH": f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"}


def test_the_built_artifact_installs_and_runs_in_a_fresh_venv(wheel: Path, tmp_path: Path) -> None:
    """The wheel, built from the sdist (the `dist` fixture), so this proves both: the sdist holds everything the
    installed package needs, and the installed package works with nothing of the checkout (a second fresh venv for
    the sdist itself would only repeat this install, a minute and a half of the suite)."""
    built = wheel
    venv = tmp_path / "venv"
    fresh_venv(venv)
    env, work = _clean_env(venv) | PIP_ENV, tmp_path / "work"
    work.mkdir()

    def run(*command: str) -> str:
        done = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True, timeout=600, check=False)
        assert done.returncode == 0, f"{' '.join(command)} exited {done.returncode}:\n{done.stdout[-3000:]}\n" \
                                     f"{done.stderr[-3000:]}"
        return done.stdout

    python = str(venv / "bin" / "python")
    run(python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", str(built))
    assert run("callproof", "--version").split() == ["callproof", _version()]
    installed = run(python, "-c", "import callproof.harness as h; print(h.__file__)").strip()
    assert installed.startswith(str(venv)), installed
    capture = next((ROOT / "examples" / "captures" / "responses" / "openai" / "ok").glob("*.sse"))
    run("callproof", "check", str(capture))
    # what the messages cite is there without the checkout: the spec section, a guide's, a rule, the format
    assert run("callproof", "docs", "contracts#7.8").startswith("### 7.8 Gateway (sandwich) rules\n")
    assert run("callproof", "docs", "adapters#layers").startswith("## Layers\n")
    assert run("callproof", "docs", "scenario-format").startswith("# Scenarios\n")
    assert run("callproof", "rules", "GW-ARGS-001").startswith("### GW-ARGS-001\n")
    assert run("callproof", "docs", "cli", "--path").strip().startswith(str(venv))
    # The example gateway is installed with callproof: nothing of the checkout is on the path.
    assert "usage: python -m callproof.examples.gateway" in run(python, "-m", "callproof.examples.gateway", "--help")
    gateway = f"{python} -m callproof.examples.gateway --upstream {{upstream}} --port {{port}}"
    out = run(python, "-m", "pytest", "--pyargs", "callproof.suite", "-p", "no:cacheprovider", "-q",
              "--callproof-launch", gateway, "-k", "one_call or parallel_two_calls")
    assert " passed" in out and "failed" not in out and "error" not in out, out


def _version() -> str:
    import tomllib

    return str(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"])
