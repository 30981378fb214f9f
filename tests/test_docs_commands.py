"""The documents run as printed: README.md, docs/tutorial.md, docs/cli.md and docs/mock.md.

**Commands.** Every command of a fenced ```sh block (continuation lines, and lines inside an open quote, joined) is
either in `RUN`, executed with bash exactly as printed, or in `SHOWN` with the reason it is not (it installs from an
index, needs the reader's own gateway, stands for it with `'...'`): a new command fails the first test until it is
declared. A command runs in an empty temporary folder made a git work tree (as the reader's own repository is), with
`examples` linking to the clone's, in the environment of a shell with this venv activated (as README and the
tutorial say: `make demo`'s venv, `. .venv/bin/activate`) and an 80-column terminal, nothing of this test run's
environment passed on. What a command needs beyond that (a gateway or the page's mock already running, a client
library, a file standing for the reader's capture) is declared with it; missing, it skips with the reason, except
under CI=true, where it fails. A command printed in two documents runs once.

**Output samples.** Every fenced block without a language is named in `OUTPUTS` (tied to the command that prints it:
a key of `RUN`, or of `EXTRA` where the printed command cannot run as printed), in `SYNOPSES` (a usage synopsis,
compared with `callproof ... --help`) or in `NOT_OUTPUT` (with the reason it shows no output), by a text only it
contains. A tied sample is compared with the command's real output line by line, as a whole or, `excerpt`, as lines
found in a row in it. Masked in both before the comparison, and nothing else:

- `...` (exactly three dots) stands for text the page leaves out, any text on that line (`{...}`, `"time": ...`);
- `in 2.49s` (pytest's duration, with its `(0:01:02)` if any) is any duration;
- the command's working folder is `/home/you` (the sample's `report: /home/you/report.json`);
- a page that wraps a long line (`wrapped`) continues it on the next line, indented by one space.

Counts are compared as printed (cases, deselected cases, events, bytes, rules, line numbers): the corpus, the rules
and the captures are the same on every machine, so when one changes the sample changes with it. No sample shows a
port that changes: the commands that print one use the fixed port the page names (8911).

**Synopses** name the same flags (and the same choices, where both spell them) as the usage line of the command's
`--help`; a synopsis ending in `[options]` names some of them.

**Python examples.** Every ```python block of these documents is in `EXAMPLES`, run as printed in a fresh
interpreter in the work folder, or in `SHOWN_EXAMPLES` with the reason it is not. An example is run as a script, as
a pytest module (its fixtures from the callproof plugin, as in the reader's own suite), or with `mock`, the name the
page gives a `MockServer`, bound to one serving the bundled corpus."""

from __future__ import annotations

import contextlib
import fcntl
import importlib.util
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import pytest

from callproof.harness.cli import main
from tests import fakes

ROOT = Path(__file__).resolve().parents[1]
DOCS = ("README.md", "docs/tutorial.md", "docs/cli.md", "docs/mock.md")
BLOCK = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
GATEWAY = "'python -m callproof.examples.gateway --upstream {upstream} --port {port}'"
#: docs/mock.md's mock, on the port its examples use.
MOCK = "callproof mock --port 8911 --strict --seed 7 --journal mock.jsonl"
#: What stands for the reader's `curl ... > capture.sse` in README.md: a capture that breaks RSP-ARGS-001.
CAPTURE = ROOT / "examples/captures/responses/openai/broken/RSP-ARGS-001--arguments-done-differs-from-deltas.sse"
#: A baseline whose line 3 lists a case that passes and line 5 a rule that passes in a case that still fails
#: (docs/cli.md#baselines).
BASELINE = b"# known failures of my gateway\n\none_call::expected\n# the retry fix: TICKET-12\n" \
           b"fault_http_429::faults GW-FAULT-001 GW-FAULT-002\n"


@dataclass(frozen=True)
class Run:
    """How a command is run: until it exits (`exit`), or, `serves`, until it prints that text, then Ctrl-C."""

    exit: int = 0
    serves: str | None = None
    #: what must be there besides the activated venv: "gateway:8080" (the bundled gateway on port 8080 whose
    #: upstream is the mock's fixed port 8911), "mock:8911" (docs/mock.md's `MOCK`, running), "port:N" (a fixed
    #: port, free), "module:NAME" (a client library), "program:NAME" (on PATH)
    needs: tuple[str, ...] = ()
    #: a command of the same document run first, as printed, in the same folder (the one before it in its block)
    after: str | None = None
    #: run only as the `after` of this command of the same document (so not twice)
    within: str | None = None
    #: files written in the folder first: (name, content)
    files: tuple[tuple[str, bytes], ...] = ()


#: The commands executed, as printed, by document.
RUN: dict[str, dict[str, Run]] = {
    "README.md": {
        f"callproof run --launch {GATEWAY} -k one_call --md report.md": Run(),
        "callproof mock --port 8911": Run(serves="callproof mock listening on http://127.0.0.1:8911/v1",
                                          needs=("port:8911",)),
        f"pytest --pyargs callproof.suite -k one_call \\\n       --callproof-launch {GATEWAY}": Run(),
        f"callproof run --launch {GATEWAY} -k one_call": Run(),
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
        "callproof check capture.sse": Run(exit=1, files=(("capture.sse", CAPTURE.read_bytes()),)),
        "pytest --pyargs callproof.suite --callproof-report report.json -n 2 --dist loadgroup -k 'one_call or "
        f"text_only' \\\n       --callproof-launch {GATEWAY}": Run(),
    },
    "docs/tutorial.md": {
        "callproof --version": Run(),
        f"callproof run --launch {GATEWAY} -k one_call": Run(),
        f"callproof run --launch {GATEWAY} \\\n  -k 'one_call or fault_http_429' --md report.md --html report.html":
            Run(),
        f"callproof run --launch {GATEWAY} \\\n  -k one_call --write-baseline callproof-baseline.txt":
            Run(within="git add callproof-baseline.txt"),
        "git add callproof-baseline.txt":
            Run(after=f"callproof run --launch {GATEWAY} \\\n  -k one_call --write-baseline callproof-baseline.txt"),
    },
    "docs/cli.md": {},
    "docs/mock.md": {
        MOCK: Run(serves="callproof mock listening on http://127.0.0.1:8911/v1", needs=("port:8911",)),
        "curl -s -X POST \"http://127.0.0.1:8911/_callproof/scenarios?case=t1\" -H 'content-type: application/json' "
        "\\\n  -d '{\"id\": \"hello\", \"description\": \"says hello\", \"output\": [{\"type\": \"text\", \"text\": "
        "\"Hello!\"}],\n       \"request\": {\"input\": [{\"role\": \"user\", \"text\": \"hi\"}]}, \"expect\": "
        "{\"status\": \"completed\", \"text\": \"Hello!\"}}'": Run(needs=("mock:8911", "program:curl")),
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
            "the reader's own gateway and request (`callproof check capture.sse` runs on a capture in its place)",
    },
    "docs/tutorial.md": {
        "git clone <this repository> callproof": "the reader's clone of this repository",
        "python3 -m venv .venv && . .venv/bin/activate": "the venv the commands run in (here: this test's own)",
        "pip install ./callproof": "installs from a package index (tests/test_packaging.py installs the sdist)",
    },
    "docs/cli.md": {
        "callproof run --launch '...' --write-baseline callproof-baseline.txt":
            "'...' is the reader's gateway (the tutorial's §4 runs it with the bundled one)",
        "callproof run --launch '...' --baseline callproof-baseline.txt":
            "'...' is the reader's gateway (`EXTRA` runs it with a baseline, for the stale-entry sample)",
        "callproof run --launch '...' --policy xml-tool-text=convert -k xml_tool":
            "'...' is the reader's gateway (tests/harness/run/ judge the policy with fakes)",
    },
    "docs/mock.md": {},
}
#: Commands no page prints as such, run for the samples they print: where the page's command has `'...'` for the
#: reader's gateway, or a sample shows what a request described in words gets.
EXTRA: dict[str, Run] = {
    # docs/cli.md#baselines and #limits: a gateway that drops Retry-After (fault_http_429::faults fails
    # GW-FAULT-002, passes GW-FAULT-001), and parallel_eight_calls' answers over the limit
    f"PYTHONPATH={shlex.quote(str(ROOT))} callproof run --launch '{fakes.launch('gateways', 'drops_retry_after')}' "
    "-k 'one_call or fault_http_429 or parallel_eight_calls' --max-events 30 --baseline callproof-baseline.txt "
    "--strict-baseline": Run(exit=1, files=(("callproof-baseline.txt", BASELINE),)),
    # docs/mock.md#the-journal: one streamed request by model name, then the journal
    "python -c 'import httpx; httpx.post(\"http://127.0.0.1:8911/v1/responses\", json={\"model\": "
    "\"callproof/one_call\", \"stream\": True, \"input\": \"weather?\"}).raise_for_status(); "
    "print(httpx.get(\"http://127.0.0.1:8911/_callproof/journal\").text, end=\"\")'": Run(needs=("mock:8911",)),
}


@dataclass(frozen=True)
class Output:
    """A sample's command (a key of `RUN` of `document`, default the sample's own, or of `EXTRA`: document
    "EXTRA"), the stream it shows, and how it is compared."""

    command: str
    document: str | None = None
    stream: Literal["stdout", "stderr"] = "stdout"
    #: the sample is some lines of the output, in a row (not all of it)
    excerpt: bool = False
    #: the page wraps long lines: a line that starts with one space continues the one before
    wrapped: bool = False


_EXTRA_RUN = next(c for c in EXTRA if "--strict-baseline" in c)
#: The output samples tied to their command, by document and a text only that sample contains.
OUTPUTS: dict[str, dict[str, Output]] = {
    "README.md": {
        "=== callproof ===": Output(f"callproof run --launch {GATEWAY} -k one_call"),
        "capture.sse: front responses": Output("callproof check capture.sse"),
    },
    "docs/tutorial.md": {},
    "docs/cli.md": {
        "stale baseline entry": Output(_EXTRA_RUN, "EXTRA", stream="stderr"),
        "GW-LIMIT-001 MUST": Output(_EXTRA_RUN, "EXTRA", excerpt=True),
    },
    "docs/mock.md": {
        '{"kind": "request"': Output(next(c for c in EXTRA if "_callproof/journal" in c), "EXTRA", wrapped=True),
    },
}
#: The usage synopses, by document and a text only that synopsis contains: the subcommands whose usage they show.
SYNOPSES: dict[str, dict[str, tuple[str, ...]]] = {
    "docs/cli.md": {
        "callproof run (": ("run",),
        "callproof check [": ("check",),
        "callproof mock [": ("mock",),
        "callproof scenarios [--format": ("scenarios", "scenarios import"),
        "callproof scenarios import FILE [--front {": ("scenarios import",),
        "callproof record --upstream": ("record",),
        "callproof fuzz (": ("fuzz",),
        "callproof report --format": ("report",),
        "callproof diff [": ("diff",),
        "callproof rules [": ("rules",),
        "callproof docs [": ("docs",),
    },
}
#: The blocks without a language that show no command's output, and what they are.
NOT_OUTPUT: dict[str, dict[str, str]] = {
    "README.md": {"faces      harness/cli/": "the layout of the packages (tests/test_imports.py keeps the floors)"},
}


@dataclass(frozen=True)
class Example:
    """How a Python example runs: as a script, as a pytest module, or with `mock` a running `MockServer`."""

    how: Literal["script", "test", "mock_server"]
    needs: tuple[str, ...] = ()


#: The Python examples run as printed, by document and a text only that example contains.
EXAMPLES: dict[str, dict[str, Example]] = {
    "docs/mock.md": {
        "retry_429_twice_then_stream": Example("test", needs=("module:openai",)),
        "responses.connect()": Example("script", needs=("mock:8911", "module:openai", "module:websockets")),
        "mock.hold(": Example("mock_server"),
        "with MockServer(strict=True) as mock:": Example("script", needs=("module:openai",)),
    },
}
#: The Python examples shown but not run, and why.
SHOWN_EXAMPLES: dict[str, dict[str, str]] = {
    "README.md": {"def test_gateway_streams_parallel_calls": "`my_gateway_client`, `request` and `my_client` are "
                                                             "the reader's (tests/harness/plugin/ run the fixtures)"},
    "docs/mock.md": {"def test_my_client_joins_interleaved_calls": "tests/mock_server/test_pytest_fixture.py runs it "
                                                                   "verbatim (test_mock_docs_example_runs)"},
}


def _without_comment(line: str) -> str:
    """A printed line without its trailing `  # ...` remark (two spaces or more before the #)."""
    return re.sub(r"\s{2,}#.*$", "", line).rstrip()


def _blocks(document: str, language: str) -> list[str]:
    return [body for lang, body in BLOCK.findall((ROOT / document).read_text(encoding="utf-8")) if lang == language]


def _open(pending: list[str]) -> bool:
    """Whether a command goes on: its last line ends in a backslash, or a quote is still open."""
    text = "\n".join(pending)
    if text.endswith("\\"):
        return True
    try:
        shlex.split(text)
    except ValueError:
        return True
    return False


def commands(document: str) -> list[str]:
    """Every command of the document's ```sh blocks, as printed: continuation lines (after a backslash, or inside
    an open quote) joined to theirs with the line break kept; comment lines and trailing remarks left out."""
    found: list[str] = []
    for block in _blocks(document, "sh"):
        pending: list[str] = []
        for line in block.splitlines():
            if not pending and (not line.strip() or line.lstrip().startswith("#")):
                continue
            pending.append(_without_comment(line))
            if not _open(pending):
                found.append("\n".join(pending))
                pending = []
    return found


def _named(blocks: list[str], names: set[str], what: str, document: str) -> dict[str, str]:
    """Each block by the one name of `names` it contains; a block with none or several, or a name no block (or
    several) contains, fails."""
    by_name: dict[str, str] = {}
    for block in blocks:
        held = [name for name in names if name in block]
        assert held, f"{document}: declare this {what} (by a text only it contains): {block[:300]!r}"
        assert len(held) == 1, f"{document}: this {what} holds several declared names {held}: {block[:300]!r}"
        assert held[0] not in by_name, f"{document}: {held[0]!r} names two {what}s"
        by_name[held[0]] = block
    stale = sorted(names - set(by_name))
    assert stale == [], f"{document} no longer has the {what}s these declarations name: {stale}"
    return by_name


def samples(document: str) -> dict[str, str]:
    """The document's blocks without a language, by the declaration that names each."""
    names = {*OUTPUTS.get(document, {}), *SYNOPSES.get(document, {}), *NOT_OUTPUT.get(document, {})}
    return _named(_blocks(document, ""), names, "output sample", document)


def examples(document: str) -> dict[str, str]:
    """The document's ```python blocks, by the declaration that names each."""
    names = {*EXAMPLES.get(document, {}), *SHOWN_EXAMPLES.get(document, {})}
    return _named(_blocks(document, "python"), names, "Python example", document)


def _executions() -> dict[str, tuple[str, Run]]:
    """Each command to execute once, with a test id: the documents' (but those run `within` another) and EXTRA."""
    found: dict[str, tuple[str, Run]] = {}
    for document, run in RUN.items():
        for number, (command, how) in enumerate(run.items(), start=1):
            if how.within is None and command not in found:
                found[command] = (f"{document}-{number}", how)
    for number, (command, how) in enumerate(EXTRA.items(), start=1):
        found[command] = (f"extra-{number}", how)
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
        for command, how in run.items():
            assert how.within is None or run[how.within].after == command, f"{command!r} runs within {how.within!r}"
    same: dict[str, Run] = {}
    for run in RUN.values():
        for command, how in run.items():
            assert same.setdefault(command, how) == how, f"{command!r} is declared twice, differently"


def test_every_output_sample_and_example_is_declared() -> None:
    executed = _executions()
    for document in DOCS:
        samples(document)
        examples(document)
        for name, output in OUTPUTS.get(document, {}).items():
            table = EXTRA if output.document == "EXTRA" else RUN[output.document or document]
            assert output.command in table and output.command in executed, \
                f"{document}: the sample {name!r} names {output.command!r}, which no declaration runs"


def _missing(why: str) -> None:
    if os.environ.get("CI", "").lower() not in ("", "0", "false", "no"):
        pytest.fail(f"CI=true and {why}", pytrace=False)
    pytest.skip(why)


def _env() -> dict[str, str]:
    """A shell's environment with this venv activated and an 80-column terminal: nothing of this test run (pytest,
    the checkout's path)."""
    venv = Path(sys.prefix)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTEST_", "PYTHON", "VIRTUAL_ENV", "CALLPROOF_")) and k != "COV_CORE_SOURCE"}
    return env | {"VIRTUAL_ENV": str(venv), "PATH": f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}",
                  "COLUMNS": "80"}


def _free(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) != 0


def _wait_for(port: int, process: subprocess.Popen[str], what: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while _free(port):
        if process.poll() is not None or time.monotonic() > deadline:
            pytest.fail(f"{what} did not listen on port {port} (exit status {process.poll()})")
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


def _start(argv: list[str], port: int, workdir: Path, what: str) -> subprocess.Popen[str]:
    process = subprocess.Popen(argv, cwd=workdir, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               text=True)
    _wait_for(port, process, what)
    return process


@pytest.fixture
def needs(request: pytest.FixtureRequest, workdir: Path) -> Iterator[None]:
    """What the command declares it needs, provided (a gateway, the page's mock, a fixed port) or checked (a
    module, a program)."""
    started: list[subprocess.Popen[str]] = []
    stack = contextlib.ExitStack()
    for need in request.param:
        kind, _, what = need.partition(":")
        if kind == "module" and importlib.util.find_spec(what) is None:
            _missing(f"{what} is not installed (the dev extra has it)")
        if kind == "program" and shutil.which(what) is None:
            _missing(f"{what} is not on PATH")
        if kind == "port":
            _hold(int(what), stack)
        if kind == "mock":
            _hold(int(what), stack)
            started.append(_start(["bash", "-c", f"exec {MOCK}"], int(what), workdir, "docs/mock.md's mock"))
        if kind == "gateway":
            _hold(8911, stack)
            _hold(int(what), stack)
            started.append(_start(
                [sys.executable, "-m", "callproof.examples.gateway", "--upstream", "http://127.0.0.1:8911/v1",
                 "--port", what], int(what), workdir, "the bundled gateway"))
    with stack:
        try:
            yield
        finally:
            for process in started:
                process.terminate()
                process.communicate(timeout=30)  # and its stderr pipe closed


def _cases() -> Iterator[object]:
    for command, (name, how) in _executions().items():
        yield pytest.param(command, how, how.needs, id=name)


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


DURATION = re.compile(r"\bin \d+(?:\.\d+)?s(?: \(\d+:\d\d:\d\d\))?")
ELISION = re.compile(r"(?<!\.)\.\.\.(?!\.)")


def _masked(text: str, workdir: Path) -> list[str]:
    """The real output's lines, masked: the working folder as /home/you, any duration as one."""
    for folder in sorted({str(workdir.resolve()), str(workdir)}, key=len, reverse=True):
        text = text.replace(folder, "/home/you")
    return [DURATION.sub("in <duration>", line).rstrip() for line in text.splitlines()]


def _pattern(line: str) -> re.Pattern[str]:
    """A sample's line as a pattern of the real line: `...` any text, any duration one."""
    return re.compile(".*".join(re.escape(piece) for piece in ELISION.split(DURATION.sub("in <duration>", line))))


def _sample_lines(sample: str, wrapped: bool) -> list[str]:
    lines: list[str] = []
    for line in sample.splitlines():
        if wrapped and lines and line.startswith(" ") and not line.startswith("  "):
            lines[-1] += line
        else:
            lines.append(line.rstrip())
    return lines


def _mismatch(sample: str, how: Output, real: list[str]) -> str | None:
    """Why the sample is not what was printed, or None."""
    patterns = [_pattern(line) for line in _sample_lines(sample, how.wrapped)]
    starts = range(len(real) - len(patterns) + 1) if how.excerpt else [0] if len(real) == len(patterns) else []
    for start in starts:
        if all(p.fullmatch(line) for p, line in zip(patterns, real[start:start + len(patterns)], strict=True)):
            return None
    return "the sample:\n" + "\n".join(_sample_lines(sample, how.wrapped)) + f"\n\nthe real {how.stream} (masked):\n" \
        + "\n".join(line if len(line) <= 500 else f"{line[:500]}[... {len(line) - 500} more]" for line in real)


def _samples_of(command: str) -> list[tuple[str, str, Output]]:
    """The samples printed by this command: (document, sample, how)."""
    return [(document, samples(document)[name], how) for document in DOCS
            for name, how in OUTPUTS.get(document, {}).items() if how.command == command]


@pytest.mark.parametrize(("command", "how", "needs"), list(_cases()), indirect=["needs"])
def test_the_command_runs_as_printed(command: str, how: Run, needs: None, workdir: Path) -> None:
    for name, content in how.files:
        (workdir / name).write_bytes(content)
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
    wrong = [f"{document}: {why}" for document, sample, output in _samples_of(command)
             if (why := _mismatch(sample, output, _masked(out if output.stream == "stdout" else err, workdir)))]
    assert wrong == [], "\n\n".join(wrong)


FLAG = re.compile(r"(?<![\w-])(--?[a-zA-Z][\w-]*)(?: \{([^}]*)\})?")


def _usage(subcommand: str, capsys: pytest.CaptureFixture[str]) -> str:
    """The usage lines of `callproof SUBCOMMAND --help`."""
    with pytest.raises(SystemExit) as done:
        main([*subcommand.split(), "--help"])
    assert done.value.code == 0
    return capsys.readouterr().out.split("\n\n")[0]


def _flags(text: str) -> dict[str, str | None]:
    """The flags a usage or synopsis names, each with its {choices} if spelt."""
    found: dict[str, str | None] = {}
    for flag, choices in FLAG.findall(text):
        if flag not in ("-h", "--help"):
            found[flag] = found.get(flag) or choices or None
    return found


@pytest.mark.parametrize(("document", "name"), [(d, n) for d, table in SYNOPSES.items() for n in table])
def test_a_synopsis_names_the_flags_of_the_usage(document: str, name: str,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    synopsis = samples(document)[name]
    usage = "\n".join(_usage(subcommand, capsys) for subcommand in SYNOPSES[document][name])
    shown, real = _flags(synopsis), _flags(usage)
    if synopsis.rstrip().endswith("[options]"):
        assert set(shown) <= set(real), f"{document}: the synopsis names flags the usage lacks:\n{synopsis}\n{usage}"
    else:
        assert set(shown) == set(real), f"{document}: the synopsis and the usage differ:\n{synopsis}\n{usage}"
    different = {flag: (choices, real[flag]) for flag, choices in shown.items()
                 if choices and real.get(flag) and choices != real[flag]}
    assert different == {}, f"{document}: the synopsis's choices are not the usage's: {different}"


def test_cli_md_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    listed = re.search(r"\{([\w,]+)\}", _usage("", capsys))
    assert listed is not None
    table = re.findall(r"^\| \[`(\w+)`\]\(#callproof-\1\) \|", (ROOT / "docs/cli.md").read_text(encoding="utf-8"),
                       re.MULTILINE)
    assert sorted(table) == sorted(listed.group(1).split(",")), "docs/cli.md's command table: one row per command"


_MOCK_SERVER = """\
from callproof.mock_server import MockServer
with MockServer() as mock:
    exec(compile(open("example.py", encoding="utf-8").read(), "example.py", "exec"), {"mock": mock})
"""


def _example_cases() -> Iterator[object]:
    for document, table in EXAMPLES.items():
        for number, (name, how) in enumerate(table.items(), start=1):
            yield pytest.param(document, name, how, how.needs, id=f"{document}-{number}")


@pytest.mark.parametrize(("document", "name", "how", "needs"), list(_example_cases()), indirect=["needs"])
def test_the_python_example_runs_as_printed(document: str, name: str, how: Example, needs: None,
                                            workdir: Path) -> None:
    example = examples(document)[name]
    if how.how == "test":
        (workdir / "test_example.py").write_text(example, encoding="utf-8")
        argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_example.py"]
    else:
        (workdir / "example.py").write_text(example, encoding="utf-8")
        argv = [sys.executable, "-c", _MOCK_SERVER] if how.how == "mock_server" else [sys.executable, "example.py"]
    done = subprocess.run(argv, cwd=workdir, env=_env(), capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, f"{document}: the example {name!r} exited {done.returncode}:\n" \
                                 f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
