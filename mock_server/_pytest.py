"""What the `callproof_mock` fixture does, kept out of the thin plugin module (which keeps the fixtures and only
calls these): the per-process server, the marker's options, the clock and reset before each test, and the teardown
check for requests no scenario answered and sequences left unfinished."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from callproof.harness import JSONData
from callproof.harness.scenario import Scenario, bundled_scenarios, load_scenarios

from ._clock import RealClock, SwitchClock, VirtualClock
from ._journal import JournalRequest
from ._serve import MockServer

__all__ = ["MockOptions", "begin_fixture_test", "end_fixture_test", "start_fixture_server"]


@dataclass(frozen=True, slots=True)
class MockOptions:
    """The `callproof_mock` marker's keyword arguments (closest marker wins per key).

    `assert_all_matched`: at teardown, fail the test when a request selected no scenario (the strict mock answered
    404); mark a test `@pytest.mark.callproof_mock(assert_all_matched=False)` when that is the point of it.
    `assert_all_legs_played`: at teardown, fail the test when a sequence it began has a leg it never requested.
    `virtual_clock`: play scripted delays at once (None: the `callproof_virtual_clock` ini setting)."""

    assert_all_matched: bool = True
    assert_all_legs_played: bool = True
    virtual_clock: bool | None = None

    @classmethod
    def from_markers(cls, markers: Sequence[Mapping[str, Any]]) -> MockOptions:
        __tracebackhide__ = True
        merged: dict[str, Any] = {}
        for kwargs in reversed(markers):  # farthest first, so the closest marker overrides
            merged.update(kwargs)
        try:
            return cls(**merged)
        except TypeError:
            allowed = ", ".join(cls.__dataclass_fields__)
            raise TypeError(
                f"callproof_mock marker: unknown option(s) {sorted(set(merged) - set(cls.__dataclass_fields__))}; "
                f"allowed: {allowed}"
            ) from None


def start_fixture_server(scenario_paths: Sequence[str], seed: int, root: Path) -> MockServer:
    """A strict mock on 127.0.0.1 with an ephemeral port: the bundled corpus plus the user's scenario files."""
    scenarios: dict[str, Scenario] = dict(bundled_scenarios())
    if scenario_paths:
        extra = load_scenarios([root / p for p in scenario_paths])
        clash = sorted(set(extra) & set(scenarios))
        if clash:
            raise ValueError(f"callproof_scenarios redefines bundled scenario ids {clash}; rename them")
        scenarios.update(extra)
    return MockServer(scenarios, strict=True, seed=seed, clock=SwitchClock()).start()


def begin_fixture_test(
    server: MockServer, markers: Sequence[Mapping[str, Any]], virtual_clock: bool,
) -> MockOptions:
    """Ready the fixture's server for one test: the options of its `callproof_mock` markers (closest first), the
    clock (virtual when the options say so, else when `virtual_clock`, the ini setting, does), an empty journal and
    fresh chaos counters."""
    options = MockOptions.from_markers(markers)
    _use_clock(server, virtual_clock if options.virtual_clock is None else options.virtual_clock)
    _reset(server)
    return options


def end_fixture_test(server: MockServer, options: MockOptions) -> str | None:
    """After the test: back on the real clock; the teardown's failure message (requests that selected no scenario,
    sequences left unfinished, as `options` ask), or None."""
    _use_clock(server, False)
    messages = [
        _unexpected_requests(server.journal.requests()) if options.assert_all_matched else None,
        _unplayed_legs(server.app.state.sequences.unplayed()) if options.assert_all_legs_played else None,
    ]
    return "\n".join(m for m in messages if m) or None


def _use_clock(server: MockServer, virtual: bool) -> None:
    """Play the next test's scripted delays on a fresh virtual clock (at once), or on the real one."""
    if isinstance(server.clock, SwitchClock):
        server.clock.target = VirtualClock(time.monotonic()) if virtual else RealClock()


def _reset(server: MockServer) -> None:
    """Empty the journal and restart the per-scenario chaos counters (POST /_callproof/reset)."""
    httpx.post(f"{server.root_url}/_callproof/reset", timeout=10).raise_for_status()


def _unexpected_requests(requests: Sequence[JournalRequest]) -> str | None:
    """None when every request selected a scenario; otherwise the failure message, one bullet per request."""
    missed = [r for r in requests if r.scenario is None and not r.path.startswith("/_callproof/")]
    if not missed:
        return None
    lines = [f"callproof mock: {len(missed)} request(s) selected no scenario (answered {missed[0].status}):"]
    lines += [f"- {r.method} {r.path} (model {_model(r.body)!r})" for r in missed]
    lines.append(
        "Select one with header x-callproof-scenario, [callproof:scenario=<id>] in the text or model "
        "callproof/<id>; or mark the test @pytest.mark.callproof_mock(assert_all_matched=False) "
        "(`callproof docs mock#the-callproof_mock-fixture`)."
    )
    return "\n".join(lines)


def _model(body: JSONData) -> JSONData:
    return body.get("model") if isinstance(body, dict) else None


def _unplayed_legs(rows: Sequence[Mapping[str, Any]]) -> str | None:
    """None when every sequence begun was played to its last leg; otherwise the failure message."""
    if not rows:
        return None
    lines = ["callproof mock: a sequence was left unfinished (a leg never requested):"]
    for row in rows:
        session = f"case {row['session']!r}" if row["session"] is not None else "no case tag or session header"
        lines.append(f"- {row['scenario']} ({session}): played legs {row['played']}, never requested "
                     f"{row['unplayed']} of {row['legs']}" + (f"; {row['refused']} refused (requires)"
                                                            if row["refused"] else ""))
    lines.append("The client stopped early: did it retry, or send the tool result? Opt out with "
                 "@pytest.mark.callproof_mock(assert_all_legs_played=False) (`callproof docs mock#sequences`).")
    return "\n".join(lines)
