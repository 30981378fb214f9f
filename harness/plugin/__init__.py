"""callproof's pytest plugin, registered once through the `pytest11` entry point: options, ini settings, markers,
fixtures and the hooks that carry case verdicts to the report. The logic lives elsewhere (`_suite`, `_assertions`,
`_scenario_case`, `callproof.mock_server._pytest`)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, cast

import pytest

from callproof.harness.catalogue import PROFILES

from ._assertions import StreamAssertion

if TYPE_CHECKING:  # the mock (starlette, uvicorn) and the harness are imported only by tests that use them
    from callproof.harness.judge import CaseSpec
    from callproof.mock_server import MockServer

    from ._scenario_case import ScenarioCase
    from ._suite import Judged, SuiteSession

__all__ = ["callproof_check", "callproof_mock", "callproof_scenario"]

_NO_IUT = (
    "callproof.suite needs an implementation under test: --callproof-launch 'CMD {upstream} {port}', "
    "--callproof-target URL, --callproof-app module:attr, --callproof-client-cmd CMD or "
    "--callproof-client module:function (or use `callproof run`)"
)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("callproof", "callproof: tool-call streaming conformance")
    group.addoption("--callproof-profile", choices=PROFILES, default=None,
                    help="rules and schema variant (default: ini callproof_profile, else openai)")
    iut = parser.getgroup("callproof-iut", "callproof: the implementation under test (give one)")
    iut.addoption("--callproof-launch", metavar="CMD", help="gateway command to start, with {upstream}, "
                  "{upstream_root} and {port} placeholders (e.g. 'python gw.py --upstream {upstream} --port {port}')")
    iut.addoption("--callproof-target", metavar="URL", help="front URL of a gateway already running (pointed at the "
                  "mock on --callproof-mock-port)")
    iut.addoption("--callproof-app", metavar="MODULE:ATTR", help="ASGI gateway app to serve in-process on uvicorn")
    iut.addoption("--callproof-client-cmd", metavar="CMD", help="client adapter program (docs/adapters.md)")
    iut.addoption("--callproof-client", metavar="MODULE:FUNCTION", help="in-process client adapter function")
    run = parser.getgroup("callproof-run", "callproof: the bundled suite (callproof.suite)")
    run.addoption("--callproof-upstream-dialect", default="chat", choices=("chat", "responses", "anthropic"),
                  help="dialect the mock serves the gateway as its upstream (default chat)")
    run.addoption("--callproof-front-url", default="http://127.0.0.1:{port}/v1/responses", metavar="TEMPLATE",
                  help="where a launched gateway serves the Responses front (default %(default)s)")
    run.addoption("--callproof-ready-url", default=None, metavar="TEMPLATE",
                  help="URL that answers 2xx once a launched gateway is ready (default: its port accepts)")
    run.addoption("--callproof-case-timeout", default=30.0, type=float, metavar="S",
                  help="seconds a case may take before the IUT counts as hung (default 30)")
    run.addoption("--callproof-model", default="callproof-model", metavar="NAME",
                  help="model name sent to the IUT (scenario selection never depends on it)")
    run.addoption("--callproof-scenarios", action="append", default=[], metavar="PATH",
                  help="extra scenario files or folders (repeatable)")
    run.addoption("--callproof-mock-port", default=0, type=int, metavar="PORT",
                  help="port of the mock upstream (default: a free one; fix it with --callproof-target)")
    run.addoption("--callproof-baseline", default=None, metavar="FILE",
                  help="known failures that do not fail the run (docs/cli.md: baselines)")
    run.addoption("--callproof-report", default=None, metavar="FILE.json", help="write the JSON report here")
    parser.addini("callproof_profile", "default callproof profile: openai, open-responses or lenient",
                  default="openai")
    parser.addini("callproof_scenarios", "scenario files or folders served by callproof_mock besides the bundled "
                  "corpus (relative to the rootdir)", type="paths", default=[])
    parser.addini("callproof_seed", "seed of the callproof_mock chaos faults", default="0")


def _profile(config: pytest.Config) -> str:
    return str(config.getoption("callproof_profile") or config.getini("callproof_profile"))


def _run_config(config: pytest.Config) -> object:
    from ._suite import config_from_options

    return config_from_options(
        lambda name: _profile(config) if name == "callproof_profile" else config.getoption(name),
        config.invocation_params.dir,
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "callproof_mock(*, assert_all_matched=True): options of the callproof_mock fixture; "
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
    if run is not None and not hasattr(config, "workerinput"):  # the controller alone writes the report
        from callproof.harness.run import RunConfig

        from ._suite import Collector, load_optional_baseline

        load_optional_baseline(config.getoption("callproof_baseline"))  # a bad file is a usage error, up front
        report = config.getoption("callproof_report")
        program = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else "pytest"
        command = ["python", "-m", "pytest"] if program == "__main__.py" else [program]
        collector = Collector(cast(RunConfig, run), [*command, *sys.argv[1:]], Path(report) if report else None)
        config.pluginmanager.register(collector, "callproof-collector")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "callproof_case" not in metafunc.fixturenames:
        return
    from callproof.harness.run import RunConfig

    from ._suite import plan

    run = _run_config(metafunc.config)
    if run is None:
        raise pytest.UsageError(_NO_IUT)
    specs = plan(cast(RunConfig, run))
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
    from callproof.mock_server._pytest import start_server

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
    from callproof.mock_server._pytest import MockOptions, reset, unexpected_requests

    server = _callproof_mock_server
    options = MockOptions.from_markers([m.kwargs for m in request.node.iter_markers("callproof_mock")])
    reset(server)
    yield server
    if options.assert_all_matched:
        message = unexpected_requests(server.journal.requests())
        if message is not None:
            pytest.fail(message, pytrace=False)


@pytest.fixture
def callproof_scenario(request: pytest.FixtureRequest, _callproof_mock_server: MockServer) -> ScenarioCase:
    """The scenario named by `@pytest.mark.callproof(scenario=...)`, with a fresh case tag: `.request` is the
    Responses request to send, `.expected_calls` what must come back, `.check_result(result)` judges it."""
    from ._scenario_case import scenario_case

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
    from callproof.harness.run import RunConfig

    from ._suite import SuiteSession, load_optional_baseline

    session = SuiteSession(cast(RunConfig, _run_config(request.config)),
                           load_optional_baseline(request.config.getoption("callproof_baseline")))
    yield session
    session.close()


@pytest.fixture
def callproof_result(request: pytest.FixtureRequest, callproof_case: CaseSpec,
                     _callproof_session: SuiteSession) -> Judged:
    """The verdict on this item's case (scenario x rule group), judged once the scenario has run."""
    from ._suite import PROPERTY

    judged = _callproof_session.judge(callproof_case)
    request.node.user_properties.append((PROPERTY, json.dumps(judged.data)))
    return judged
