"""callproof.mock_server: the scripted mock upstream (scenarios, dialect renderers, faults, server)."""

from __future__ import annotations

from callproof.harness.scenario import Scenario, ScenarioError, bundled_scenarios, load_scenarios

from ._app import create_app
from ._clock import Clock, RealClock, SwitchClock, VirtualClock
from ._journal import Journal, JournalEnd, JournalRequest, JournalWrite
from ._planning import make_plan
from ._player import Plan, Write
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
    "MockServer",
    "Plan",
    "RealClock",
    "RecordServer",
    "Scenario",
    "ScenarioError",
    "SwitchClock",
    "VirtualClock",
    "Write",
    "bundled_scenarios",
    "create_app",
    "is_loopback",
    "load_scenarios",
    "make_plan",
    "record_forever",
    "route_to_mock",
    "serve_forever",
]
