"""callproof's pytest plugin, registered once through the `pytest11` entry point: options, ini settings, markers,
fixtures and the hooks that carry case verdicts to the report. The logic lives elsewhere (`_suite`, `_assertions`,
`_scenario_case`, `callproof.mock_server._pytest`)."""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

import pytest

from callproof.harness._options import (
    Option,
    option,
    options_for,
    plugin_dest,
    plugin_flag,
    plugin_text,
    redact_argv,
)
from callproof.harness.catalogue import PROFILES
from callproof.harness.judge import CaseSpec
from callproof.harness.run import ConfigError, RunConfig, interruptible, iut_groups, setup_problem

from ._assertions import StreamAssertion
from ._scenario_case import ScenarioCase, scenario_case
from ._suite import PROPERTY, Collector, Judged, SuiteSession, load_optional_baseline, plan

if TYPE_CHECKING:  # the mock (starlette, uvicorn) is imported only by tests that use it
    from callproof.mock_server import MockServer

__all__ = ["callproof_check", "callproof_mock", "callproof_scenario"]

#: What the bundled suite undoes at the end of the session: the signal handlers, the record of launched IUTs.
_ENDS = pytest.StashKey[contextlib.ExitStack]()

_NO_IUT = (
    "callproof.suite needs an implementation under test: "
    + plugin_text("--launch 'CMD {upstream} {port}', --target URL, --app module:attr, --client-cmd CMD or "
                  "--client module:function")
    + " (or use `callproof run`)"
)


def _addoption(group: pytest.OptionGroup, entry: Option) -> None:
    """One `--callproof-*` option, generated from the option table (harness/_options.py)."""
    kwargs: dict[str, Any] = {"dest": plugin_dest(entry), "help": plugin_text(entry.help)}
    if entry.kind == "many":
        kwargs.update(action="append", default=[], help=f"{kwargs['help']} (repeatable)")
    elif entry.kind in ("true", "false"):
        kwargs.update(action=f"store_{entry.kind}", default=entry.pytest_default)
    else:
        kwargs["default"] = entry.pytest_default
    if entry.ini:
        kwargs["help"] = kwargs["help"].replace("(default ", f"(default: ini {entry.ini}, else ")
    for key in ("metavar", "type", "choices"):
        if getattr(entry, key) is not None:
            kwargs[key] = getattr(entry, key)
    group.addoption(plugin_flag(entry), **kwargs)


def pytest_addoption(parser: pytest.Parser) -> None:
    groups = {
        "general": parser.getgroup("callproof", "callproof: tool-call streaming conformance"),
        "iut": parser.getgroup("callproof-iut", "callproof: the implementation under test (give one)"),
        "run": parser.getgroup("callproof-run", "callproof: the bundled suite (callproof.suite)"),
    }
    for entry in options_for("pytest"):
        _addoption(groups["iut" if entry.iut else "general" if entry.ini else "run"], entry)
    parser.addini("callproof_profile", "default callproof profile: openai, open-responses or lenient",
                  default="openai")
    parser.addini("callproof_scenarios", "scenario files or folders served by callproof_mock besides the bundled "
                  "corpus (relative to the rootdir)", type="paths", default=[])
    parser.addini("callproof_seed", "seed of the callproof_mock chaos faults", default="0")
    parser.addini("callproof_virtual_clock", "play callproof_mock's scripted delays at once on a virtual clock",
                  type="bool", default=False)


def _value(config: pytest.Config, name: str) -> object:
    """An option's value, its ini setting when it was not given."""
    entry = option(name)
    value = config.getoption(plugin_dest(entry))
    if value is None and entry.ini:
        value = config.getini(entry.ini)
    return value


def _profile(config: pytest.Config) -> str:
    return str(_value(config, "profile"))


def _run_config(config: pytest.Config) -> RunConfig | None:
    """The bundled suite's configuration; None when no implementation under test is named."""
    try:
        return RunConfig.from_options(lambda name: _value(config, name), config.invocation_params.dir)
    except ConfigError as exc:
        raise pytest.UsageError(plugin_text(str(exc))) from None


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "callproof_mock(*, assert_all_matched=True, assert_all_legs_played=True, virtual_clock=None): options of "
        "the callproof_mock fixture; "
        "see docs/mock.md#the-callproof_mock-fixture",
    )
    config.addinivalue_line(
        "markers",
        "callproof(scenario, *, stream=None): the scenario the callproof_scenario fixture prepares; "
        "see README.md#your-own-tests",
    )
    run = _run_config(config)
    if run is None and any(arg.split("::")[0] == "callproof.suite" for arg in config.args):
        raise pytest.UsageError(_NO_IUT)
    if run is None:
        return
    controller = not hasattr(config, "workerinput")
    report = config.getoption("callproof_report")
    if controller:  # the controller alone checks the setup and writes the report
        workers = config.getoption("numprocesses", None) or 0
        outputs = [] if not report else [("--report", Path(report)), ("--report", Path(report).with_suffix(".jsonl"))]
        problem = setup_problem(run, outputs, workers if isinstance(workers, int) else 1)
        if problem is not None:
            raise pytest.UsageError(plugin_text(problem))
        baseline = load_optional_baseline(config.getoption("callproof_baseline"))  # a bad file: usage error, now
        if config.getoption("callproof_strict_baseline") and baseline is None:
            raise pytest.UsageError("--callproof-strict-baseline needs --callproof-baseline FILE: the baseline whose "
                                    "stale entries fail the run")
    stack = contextlib.ExitStack()  # SIGTERM ends the session as Ctrl-C does (in xdist workers too)
    stack.enter_context(interruptible())
    config.stash[_ENDS] = stack
    if controller:
        stack.enter_context(iut_groups())  # no launched IUT outlives the session, whichever process launched it
        program = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else "pytest"
        command = ["python", "-m", "pytest"] if program == "__main__.py" else [program]
        strict = load_optional_baseline(config.getoption("callproof_baseline")) \
            if config.getoption("callproof_strict_baseline") else None
        collector = Collector(run, [*command, *redact_argv(sys.argv[1:])], Path(report) if report else None,
                              strict_baseline=strict)
        config.pluginmanager.register(collector, "callproof-collector")


def _numbered(tb: TracebackType | None) -> TracebackType | None:
    """The traceback with a line number in every entry (a frame's first line where Python left none)."""
    entries: list[TracebackType] = []
    while tb is not None:
        entries.append(tb)
        tb = tb.tb_next
    out: TracebackType | None = None
    for entry in reversed(entries):
        line = entry.tb_lineno if entry.tb_lineno is not None else entry.tb_frame.f_code.co_firstlineno
        out = TracebackType(out, entry.tb_frame, entry.tb_lasti, line)
    return out


@pytest.hookimpl(tryfirst=True)
def pytest_keyboard_interrupt(excinfo: pytest.ExceptionInfo[BaseException]) -> None:
    """A signal landing between two instructions can leave a traceback entry without a line number, on which
    pytest's report of the interruption would crash (a traceback instead of the run's one line): number them."""
    seen: set[int] = set()
    error: BaseException | None = excinfo.value
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        error.__traceback__ = _numbered(error.__traceback__)
        error = error.__cause__ or error.__context__
    excinfo.traceback = type(excinfo.traceback)(_numbered(excinfo.tb) or excinfo.tb)


def pytest_unconfigure(config: pytest.Config) -> None:
    stack = config.stash.get(_ENDS, None)
    if stack is not None:
        stack.close()


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "callproof_case" not in metafunc.fixturenames:
        return
    run = _run_config(metafunc.config)
    if run is None:
        raise pytest.UsageError(_NO_IUT)
    specs = plan(run)
    metafunc.parametrize("callproof_case", [
        pytest.param(s, id=s.id, marks=pytest.mark.xdist_group(s.scenario)) for s in specs
    ])


@pytest.fixture
def callproof_check(request: pytest.FixtureRequest) -> StreamAssertion:
    """Check a stream in your own test: `callproof_check(sse_bytes)` raises on MUST failures, returns the report."""
    profile = _profile(request.config)
    if profile not in PROFILES:
        raise pytest.UsageError(
            f"callproof_profile = {profile!r} is not a profile; use one of {', '.join(PROFILES)}"
        )
    return StreamAssertion(profile)


@pytest.fixture(scope="session")
def _callproof_mock_server(request: pytest.FixtureRequest) -> Iterator[MockServer]:
    """One strict mock per process (so one per pytest-xdist worker), on 127.0.0.1 and an ephemeral port."""
    from callproof.mock_server._pytest import start_server  # start-up guard: starlette and uvicorn only when used

    config = request.config
    paths = [str(p) for p in config.getini("callproof_scenarios")]
    try:
        seed = int(config.getini("callproof_seed"))
    except ValueError:
        raise pytest.UsageError(f"callproof_seed = {config.getini('callproof_seed')!r} is not an integer") from None
    server = start_server(paths, seed, config.rootpath)
    yield server
    server.stop()


@pytest.fixture
def callproof_mock(request: pytest.FixtureRequest, _callproof_mock_server: MockServer) -> Iterator[MockServer]:
    """The mock upstream (a `callproof.mock_server.MockServer`): `.url` for OpenAI clients, `.root_url` for
    Anthropic ones, `.journal` for what it received and sent. Reset before each test; at teardown the test fails
    if a request selected no scenario (opt out: `@pytest.mark.callproof_mock(assert_all_matched=False)`)."""
    from callproof.mock_server._pytest import (  # start-up guard, as above
        MockOptions,
        reset,
        unexpected_requests,
        unplayed_legs,
        use_clock,
    )

    server = _callproof_mock_server
    options = MockOptions.from_markers([m.kwargs for m in request.node.iter_markers("callproof_mock")])
    virtual = options.virtual_clock
    use_clock(server, bool(request.config.getini("callproof_virtual_clock")) if virtual is None else virtual)
    reset(server)
    yield server
    use_clock(server, False)
    messages = [
        unexpected_requests(server.journal.requests()) if options.assert_all_matched else None,
        unplayed_legs(server.app.state.sequences.unplayed()) if options.assert_all_legs_played else None,
    ]
    if any(messages):
        pytest.fail("\n".join(m for m in messages if m), pytrace=False)


@pytest.fixture
def callproof_scenario(request: pytest.FixtureRequest, _callproof_mock_server: MockServer) -> ScenarioCase:
    """The scenario named by `@pytest.mark.callproof(scenario=...)`, with a fresh case tag: `.request` is the
    Responses request to send, `.expected_calls` what must come back, `.check_result(result)` judges it."""
    marker = request.node.get_closest_marker("callproof")
    if marker is None or "scenario" not in marker.kwargs:
        raise pytest.UsageError(f"{request.node.nodeid}: callproof_scenario needs "
                                "@pytest.mark.callproof(scenario='<id>'); see `callproof scenarios`")
    wanted = marker.kwargs["scenario"]
    scenarios = _callproof_mock_server.app.state.scenarios
    if wanted not in scenarios:
        raise pytest.UsageError(f"{request.node.nodeid}: unknown scenario {wanted!r}; see `callproof scenarios`")
    return scenario_case(scenarios[wanted], stream=marker.kwargs.get("stream"))


@pytest.fixture(scope="session")
def _callproof_session(request: pytest.FixtureRequest) -> Iterator[SuiteSession]:
    """The bundled suite's harness for this process (one per pytest-xdist worker): mock and IUT."""
    run = _run_config(request.config)
    if run is None:
        raise pytest.UsageError(_NO_IUT)
    session = SuiteSession(run, load_optional_baseline(request.config.getoption("callproof_baseline")))
    yield session
    session.close()


@pytest.fixture
def callproof_result(request: pytest.FixtureRequest, callproof_case: CaseSpec,
                     _callproof_session: SuiteSession) -> Judged:
    """The verdict on this item's case (scenario x rule group), judged once the scenario has run."""
    judged = _callproof_session.judge(callproof_case)
    request.node.user_properties.append((PROPERTY, json.dumps(judged.data)))
    return judged
