"""callproof's pytest plugin, registered once through the `pytest11` entry point: its hooks and fixtures, each
delegating: options and ini settings to `_settings` (the pytest view of the option table), the bundled suite to
`_suite`, stream assertions to `_assertions`, scenario cases to `_scenario_case`, interrupted tracebacks to
`_tracebacks`, how pytest counts a case to `_status`, and the mock fixture's plumbing to the mock's pytest support API
(`callproof.mock_server.start_fixture_server`, `begin_fixture_test`, `end_fixture_test`)."""

from __future__ import annotations

import contextlib
import difflib
import json
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from callproof.harness._options import plugin_text
from callproof.harness.catalogue import PROFILES
from callproof.harness.judge import CaseSpec
from callproof.harness.run import interruptible

from ._assertions import StreamAssertion
from ._scenario_case import ScenarioCase, scenario_case
from ._settings import add_options, profile, run_config
from ._shard import select_shard
from ._status import case_status
from ._suite import (
    PROPERTY,
    Judged,
    SuiteSession,
    check_setup,
    load_optional_baseline,
    plan,
    start_collector,
    verdict,
)
from ._tracebacks import numbered

if TYPE_CHECKING:  # the mock (starlette, uvicorn) is imported only by tests that use it
    from callproof.mock_server import MockServer

__all__ = ["Judged", "callproof_check", "callproof_mock", "callproof_scenario", "verdict"]

#: What the bundled suite undoes at the end of the session: the signal handlers, the record of launched IUTs.
_ENDS = pytest.StashKey[contextlib.ExitStack]()

_NO_IUT = (
    "callproof.suite needs an implementation under test: "
    + plugin_text("--launch 'CMD {upstream} {port}', --target URL, --app module:attr, --client-cmd CMD or "
                  "--client module:function")
    + " (or use `callproof run`)"
)


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "callproof_mock(*, assert_all_matched=True, assert_all_legs_played=True, virtual_clock=None): options of "
        "the callproof_mock fixture; "
        "see `callproof docs mock#the-callproof_mock-fixture`",
    )
    config.addinivalue_line(
        "markers",
        "callproof(scenario, *, stream=None): the scenario the callproof_scenario fixture prepares; "
        "see `callproof docs adapters#in-your-own-pytest-tests`",
    )
    run = run_config(config)
    if run is None and any(arg.split("::")[0] == "callproof.suite" for arg in config.args):
        raise pytest.UsageError(_NO_IUT)
    if run is None:
        return
    controller = not hasattr(config, "workerinput")
    if controller:  # the controller alone checks the setup and writes the report
        check_setup(config, run)
    stack = contextlib.ExitStack()  # SIGTERM ends the session as Ctrl-C does (in xdist workers too)
    stack.enter_context(interruptible())
    config.stash[_ENDS] = stack
    if controller:
        start_collector(config, run, stack)


@pytest.hookimpl(tryfirst=True)
def pytest_keyboard_interrupt(excinfo: pytest.ExceptionInfo[BaseException]) -> None:
    """A signal landing between two instructions can leave a traceback entry without a line number, on which
    pytest's report of the interruption would crash (a traceback instead of the run's one line): number them."""
    seen: set[int] = set()
    error: BaseException | None = excinfo.value
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        error.__traceback__ = numbered(error.__traceback__)
        error = error.__cause__ or error.__context__
    excinfo.traceback = type(excinfo.traceback)(numbered(excinfo.tb) or excinfo.tb)


def pytest_unconfigure(config: pytest.Config) -> None:
    stack = config.stash.get(_ENDS, None)
    if stack is not None:
        stack.close()


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "callproof_case" not in metafunc.fixturenames:
        return
    run = run_config(metafunc.config)
    if run is None:
        raise pytest.UsageError(_NO_IUT)
    specs = plan(run)
    metafunc.parametrize("callproof_case", [
        pytest.param(s, id=s.id, marks=pytest.mark.xdist_group(s.scenario)) for s in specs
    ])


def pytest_report_teststatus(report: pytest.TestReport) -> tuple[str, str, str] | None:
    """A suite case is counted in callproof's words (`error`, `SHOULD-failed`, `flaky`...), so pytest's last
    line agrees with the callproof section and the report."""
    return case_status(report)


@pytest.hookimpl(trylast=True)  # after -k: a shard is a slice of the cases -k chose (docs/ci.md#shards)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    select_shard(config, items)


@pytest.fixture
def callproof_check(request: pytest.FixtureRequest) -> StreamAssertion:
    """Check a stream in your own test: `callproof_check(sse_bytes)` raises on MUST failures, returns the report."""
    name = profile(request.config)
    if name not in PROFILES:
        raise pytest.UsageError(
            f"callproof_profile = {name!r} is not a profile; use one of {', '.join(PROFILES)}"
        )
    return StreamAssertion(name)


@pytest.fixture(scope="session")
def _callproof_mock_server(request: pytest.FixtureRequest) -> Iterator[MockServer]:
    """One strict mock per process (so one per pytest-xdist worker), on 127.0.0.1 and an ephemeral port."""
    from callproof.mock_server import start_fixture_server  # start-up guard: starlette and uvicorn only when used

    config = request.config
    paths = [str(p) for p in config.getini("callproof_scenarios")]
    try:
        seed = int(config.getini("callproof_seed"))
    except ValueError:
        raise pytest.UsageError(f"callproof_seed = {config.getini('callproof_seed')!r} is not an integer") from None
    server = start_fixture_server(paths, seed, config.rootpath)
    yield server
    server.stop()


@pytest.fixture
def callproof_mock(request: pytest.FixtureRequest, _callproof_mock_server: MockServer) -> Iterator[MockServer]:
    """The mock upstream (a `callproof.mock_server.MockServer`): `.url` for OpenAI clients, `.root_url` for
    Anthropic ones, `.journal` for what it received and sent. Reset before each test; at teardown the test fails
    if a request selected no scenario (opt out: `@pytest.mark.callproof_mock(assert_all_matched=False)`)."""
    from callproof.mock_server import begin_fixture_test, end_fixture_test  # start-up guard, as above

    server = _callproof_mock_server
    markers = [m.kwargs for m in request.node.iter_markers("callproof_mock")]
    options = begin_fixture_test(server, markers, bool(request.config.getini("callproof_virtual_clock")))
    yield server
    failure = end_fixture_test(server, options)
    if failure:
        pytest.fail(failure, pytrace=False)


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
        near = difflib.get_close_matches(str(wanted), list(scenarios), n=1)
        hint = f"; did you mean {near[0]!r}?" if near else ""
        raise pytest.UsageError(f"{request.node.nodeid}: unknown scenario {wanted!r}{hint} (`callproof scenarios` "
                                "lists them)")
    return scenario_case(scenarios[wanted], stream=marker.kwargs.get("stream"))


@pytest.fixture(scope="session")
def _callproof_session(request: pytest.FixtureRequest) -> Iterator[SuiteSession]:
    """The bundled suite's harness for this process (one per pytest-xdist worker): mock and IUT."""
    run = run_config(request.config)
    if run is None:
        raise pytest.UsageError(_NO_IUT)
    session = SuiteSession(run, load_optional_baseline(request.config.getoption("callproof_baseline")), request.session)
    yield session
    session.close()


@pytest.fixture
def callproof_result(request: pytest.FixtureRequest, callproof_case: CaseSpec,
                     _callproof_session: SuiteSession) -> Judged:
    """The verdict on this item's case (scenario x rule group), judged once the scenario has run."""
    judged = _callproof_session.judge(callproof_case)
    request.node.user_properties.append((PROPERTY, json.dumps(judged.data)))
    return judged
