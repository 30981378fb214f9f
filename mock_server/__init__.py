"""callproof.mock_server: the scripted mock upstream (scenarios, dialect renderers, faults, server)."""

from __future__ import annotations

from callproof.harness.scenario import Scenario, ScenarioError, bundled_scenarios, load_scenarios

from ._app import create_app
from ._clock import Clock, RealClock, SwitchClock, VirtualClock
from ._journal import Journal, JournalEnd, JournalRequest, JournalWrite
from ._planning import make_plan
from ._player import Plan, Write
from ._pytest import MockOptions, begin_fixture_test, end_fixture_test, start_fixture_server
from ._record import RecordServer, record_forever
from ._respx import route_to_mock
from ._serve import ExposedControlError, MockServer, is_loopback, serve_forever

__all__ = [
    "Clock",
    "ExposedControlError",
    "Journal",
    "JournalEnd",
    "JournalRequest",
    "JournalWrite",
    "MockOptions",
    "MockServer",
    "Plan",
    "RealClock",
    "RecordServer",
    "Scenario",
    "ScenarioError",
    "SwitchClock",
    "VirtualClock",
    "Write",
    "begin_fixture_test",
    "bundled_scenarios",
    "create_app",
    "end_fixture_test",
    "is_loopback",
    "load_scenarios",
    "make_plan",
    "record_forever",
    "route_to_mock",
    "serve_forever",
    "start_fixture_server",
]
