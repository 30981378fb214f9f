"""The README's and docs/tutorial.md's shell commands run as printed. Every command of a fenced ```sh block (its
continuation lines joined) is either in `RUN`, executed with bash exactly as printed, or in `SHOWN` with the reason
it is not (it installs from an index, or needs the reader's own gateway): a new command fails the first test until
it is declared. A command runs in an empty temporary folder made a git work tree, with `examples` linking to the
clone's, in the environment of a shell with this venv activated (as README and the tutorial say: `make demo`'s
venv, `. .venv/bin/activate`), nothing of this test run's environment passed on. What a command needs beyond that
(a gateway already running, a client library) is declared with it; missing, it skips with the reason, except
under CI=true, where it fails."""

from __future__ import annotations

import contextlib
import fcntl
import importlib.util
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ("README.md", "docs/tutorial.md")
SH_BLOCK = re.compile(r"^```sh\n(.*?)^```", re.MULTILINE | re.DOTALL)
GATEWAY = "'python -m callproof.examples.gateway --upstream {upstream} --port {port}'"


@dataclass(frozen=True)
class Run:
    """How a command is run: until it exits (`exit`), or, `serves`, until it prints that text, then Ctrl-C."""

    exit: int = 0
    serves: str | None = None
    #: what must be there besides the activated venv: "gateway:8080" (the bundled gateway on port 8080 whose
    #: upstream is the mock's fixed port 8911), "port:N" (a fixed port, free), "module:NAME" (a client library)
    needs: tuple[str, ...] = ()
    #: the last line it prints, as the document shows it (None: not shown)
    last_line: str | None = None
    #: a command of the same document run first, as printed, in the same folder (the one before it in its block)
    after: str | None = None


#: The commands executed, as printed, by document.
RUN: dict[str, dict[str, Run]] = {
    "README.md": {
        f"callproof run --launch {GATEWAY} -k one_call --md report.md": Run(),
        "callproof mock --port 8911": Run(serves="callproof mock listening on http://127.0.0.1:8911/v1",
                                          needs=("port:8911",)),
        f"pytest --pyargs callproof.suite -k one_call \\\n       --callproof-launch {GATEWAY}": Run(),
        f"callproof run --launch {GATEWAY} -k one_call":
            Run(last_line="callproof run: 11 cases: 11 passed; report: report.json"),
        "callproof run --target http://127.0.0.1:8080/v1/responses --mock-port 8911 -k one_call":
            Run(needs=("gateway:8080",)),
        "callproof run --app callproof.examples.gateway.asgi:app -k one_call": Run(),
        "callproof run --client-cmd 'python -m callproof.examples.client_openai' -k one_call":
            Run(needs=("module:openai",)),
        "callproof run --client callproof.examples.client_openai:run -k call_id --baseline "
        "examples/baselines/openai-sdk.txt": Run(needs=("module:openai",)),
        "callproof run --client-dialect chat --client-cmd 'python -m callproof.examples.client_openai_chat' -k "
        "one_call": Run(needs=("module:openai",)),
        "callproof run --client-dialect anthropic --client callproof.examples.client_anthropic:run -k one_call":
            Run(needs=("module:anthropic",)),
        "pytest --pyargs callproof.suite --callproof-report report.json -n 2 --dist loadgroup -k 'one_call or "
        f"text_only' \\\n       --callproof-launch {GATEWAY}": Run(),
    },
    "docs/tutorial.md": {
        "callproof --version": Run(),
        f"callproof run --launch {GATEWAY} -k one_call": Run(),
        f"callproof run --launch {GATEWAY} \\\n  -k 'one_call or fault_http_429' --md report.md --html report.html":
            Run(),
        f"callproof run --launch {GATEWAY} \\\n  -k one_call --write-baseline callproof-baseline.txt": Run(),
        "git add callproof-baseline.txt":
            Run(after=f"callproof run --launch {GATEWAY} \\\n  -k one_call --write-baseline callproof-baseline.txt"),
    },
}
#: The commands shown but not executed here, and why.
SHOWN: dict[str, dict[str, str]] = {
    "README.md": {
        "make demo": "builds the venv the commands run in (199 s); the README's first line, as a reader starts",
        "make test": "the whole suite, this test included",
        "git clone <this repository> callproof && cd callproof": "the reader's clone of this repository",
        "python3 -m pip install .": "installs from a package index (tests/test_packaging.py installs the sdist)",
        "make dist": "tests/test_packaging.py builds the sdist and the wheel as it does",
        "python3 -m pip install out/dist/callproof-*.whl": "tests/test_packaging.py installs the wheel",
        "curl -sN http://127.0.0.1:8080/v1/responses -H 'content-type: application/json' \\\n     -d '{\"model\": "
        "\"m\", \"stream\": true, \"input\": \"weather in Paris?\", \"tools\": [...]}' > capture.sse":
            "the reader's own gateway and request",
        "callproof check capture.sse": "checks what the reader's curl captured (tests/harness/cli/test_cli.py checks "
                                       "captures)",
    },
    "docs/tutorial.md": {
        "git clone <this repository> callproof": "the reader's clone of this repository",
        "python3 -m venv .venv && . .venv/bin/activate": "the venv the commands run in (here: this test's own)",
        "pip install ./callproof": "installs from a package index (tests/test_packaging.py installs the sdist)",
    },
}


def _without_comment(line: str) -> str:
    """A printed line without its trailing `  # ...` remark (two spaces or more before the #)."""
    return re.sub(r"\s{2,}#.*$", "", line).rstrip()


def commands(document: str) -> list[str]:
    """Every command of the document's ```sh blocks, as printed: continuation lines (ending in a backslash) joined
    to theirs with the backslash and line break kept; comment lines and trailing remarks left out."""
    found: list[str] = []
    for block in SH_BLOCK.findall((ROOT / document).read_text(encoding="utf-8")):
        pending: list[str] = []
        for line in block.splitlines():
            if not pending and (not line.strip() or line.lstrip().startswith("#")):
                continue
            pending.append(_without_comment(line))
            if not line.endswith("\\"):
                found.append("\n".join(pending))
                pending = []
    return found


def test_every_command_of_the_docs_is_run_or_declared() -> None:
    for document in DOCS:
        printed = commands(document)
        run, shown = RUN[document], SHOWN[document]
        assert not set(run) & set(shown)
        undeclared = [c for c in printed if c not in run and c not in shown]
        assert undeclared == [], f"{document}: declare these commands in RUN or SHOWN: {undeclared}"
        stale = [c for c in [*run, *shown, *(h.after for h in run.values() if h.after)] if c not in printed]
        assert stale == [], f"{document} no longer prints these declared commands: {stale}"


def _missing(why: str) -> None:
    if os.environ.get("CI", "").lower() not in ("", "0", "false", "no"):
        pytest.fail(f"CI=true and {why}", pytrace=False)
    pytest.skip(why)


def _env() -> dict[str, str]:
    """A shell's environment with this venv activated: nothing of this test run (pytest, the checkout's path)."""
    venv = Path(sys.prefix)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTEST_", "PYTHON", "VIRTUAL_ENV", "CALLPROOF_")) and k != "COV_CORE_SOURCE"}
    return env | {"VIRTUAL_ENV": str(venv), "PATH": f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"}


def _free(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) != 0


def _wait_for(port: int, process: subprocess.Popen[str], seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while _free(port):
        if process.poll() is not None or time.monotonic() > deadline:
            pytest.fail(f"the bundled gateway did not listen on port {port} (exit status {process.poll()})")
        time.sleep(0.1)


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    """An empty git work tree with `examples` linking to the clone's (the commands' paths are the clone's)."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    return tmp_path


def _hold(port: int, stack: contextlib.ExitStack) -> None:
    """The fixed port for this command alone among these tests (xdist workers included), and free."""
    lock = stack.enter_context((Path(tempfile.gettempdir()) / f"callproof-docs-port-{port}.lock").open("w"))
    fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
    if not _free(port):
        _missing(f"port {port} is taken: the command uses this fixed port")


@pytest.fixture
def needs(request: pytest.FixtureRequest, workdir: Path) -> Iterator[None]:
    """What the command declares it needs, provided (a gateway, a fixed port) or checked (a module)."""
    started: list[subprocess.Popen[str]] = []
    stack = contextlib.ExitStack()
    for need in request.param:
        kind, _, what = need.partition(":")
        if kind == "module" and importlib.util.find_spec(what) is None:
            _missing(f"{what} is not installed (the dev extra has it)")
        if kind == "port":
            _hold(int(what), stack)
        if kind == "gateway":
            _hold(8911, stack)
            _hold(int(what), stack)
            started.append(subprocess.Popen(
                [sys.executable, "-m", "callproof.examples.gateway", "--upstream", "http://127.0.0.1:8911/v1",
                 "--port", what], cwd=workdir, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                text=True))
            _wait_for(int(what), started[-1])
    with stack:
        try:
            yield
        finally:
            for process in started:
                process.terminate()
                process.communicate(timeout=30)  # and its stderr pipe closed


def _cases() -> Iterator[object]:
    for document, run in RUN.items():
        for number, (command, how) in enumerate(run.items(), start=1):
            yield pytest.param(command, how, how.needs, id=f"{document}-{number}")


def _serve(command: str, how: Run, workdir: Path) -> tuple[int, str, str]:
    assert how.serves is not None
    process = subprocess.Popen(["bash", "-c", f"exec {command}"], cwd=workdir, env=_env(), text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert process.stdout is not None
        first = process.stdout.readline()  # its first line says where it listens
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert how.serves in first, f"{command!r} printed {first!r} first, not {how.serves!r}; stderr: {err[-2000:]}"
    return process.returncode, first + out, err


@pytest.mark.parametrize(("command", "how", "needs"), list(_cases()), indirect=["needs"])
def test_the_command_runs_as_printed(command: str, how: Run, needs: None, workdir: Path) -> None:
    if how.after is not None:
        first = subprocess.run(["bash", "-c", how.after], cwd=workdir, env=_env(), capture_output=True, text=True,
                               timeout=300, check=False)
        assert first.returncode == 0, f"{how.after!r} exited {first.returncode}:\n{first.stderr[-3000:]}"
    if how.serves is not None:
        code, out, err = _serve(command, how, workdir)
    else:
        done = subprocess.run(["bash", "-c", command], cwd=workdir, env=_env(), capture_output=True, text=True,
                              timeout=300, check=False)  # the timeout only turns a hang into a failure
        code, out, err = done.returncode, done.stdout, done.stderr
    assert code == how.exit, f"{command!r} exited {code}, not {how.exit}:\n{out[-3000:]}\n{err[-3000:]}"
    assert "Traceback" not in err, err[-3000:]
    if how.last_line is not None:
        assert out.splitlines()[-1] == how.last_line, out[-2000:]
