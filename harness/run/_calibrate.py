"""The run's calibration: its own mock -> harness delay, measured once per process by a direct probe.

The mock streams a short paced scenario straight to the harness's HTTP client (no IUT between them). Each write's
delay is the harness's arrival stamp of its last byte minus the journal's write stamp (one monotonic clock). The
figures go into the report, with the CPU count, the load average and the number of workers, so that a reader can
judge a timing verdict; the slack of the causal timing rule (GW-STREAM-002) is derived from them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import httpx

from callproof.harness.judge import DEFAULT_SLACK
from callproof.harness.request import new_case_tag
from callproof.harness.scenario import markers
from callproof.mock_server import MockServer

from ._http_exchange import exchange

__all__ = ["PROBE_SCENARIO", "Calibration", "calibrate", "machine"]

#: The bundled scenario the probe plays: text paced at 40 tokens per second, a dozen or so writes.
PROBE_SCENARIO = "timing_tokens_per_second"
#: The slack is never below this, nor below 3 x the probe's p95.
MIN_SLACK = 0.005


@dataclass(frozen=True, slots=True)
class Calibration:
    """The probe's mock -> harness delays in ms (p50, p95, max) over `events` writes; `error` if it failed."""

    p50_ms: float
    p95_ms: float
    max_ms: float
    events: int
    error: str | None = None

    @property
    def slack(self) -> float:
        """Seconds of slack for the race of an upstream write and a forwarded event: max(5 ms, 3 x p95)."""
        if self.error is not None or not self.events:
            return DEFAULT_SLACK
        return max(MIN_SLACK, 3 * self.p95_ms / 1000)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"p50_ms": self.p50_ms, "p95_ms": self.p95_ms, "max_ms": self.max_ms,
                               "events": self.events, "slack_ms": round(self.slack * 1000, 1)}
        if self.error is not None:
            out["error"] = self.error
        return out


def _percentile(values: list[float], share: float) -> float:
    return values[min(len(values) - 1, int(share * len(values)))]


def calibrate(http: httpx.Client, mock: MockServer, timeout: float = 10.0) -> Calibration:
    """Play PROBE_SCENARIO from `mock` (a started MockServer) straight to `http` and measure each write's delay."""
    case = new_case_tag()
    body = {"model": "callproof-model", "stream": True,
            "messages": [{"role": "user", "content": f"calibration probe {markers(PROBE_SCENARIO, case)}"}]}
    sent = exchange(http, f"{mock.url}/chat/completions", body, timeout=timeout)
    requests = mock.journal.requests(case=case)
    if sent.status != 200 or not requests:
        return Calibration(0.0, 0.0, 0.0, 0, f"the probe got HTTP {sent.status}: {sent.error or 'no stream'}")
    arrivals: list[tuple[int, float]] = []
    offset = 0
    for chunk in sent.chunks:
        offset += len(chunk.data)
        arrivals.append((offset, chunk.time))
    delays: list[float] = []
    end = 0
    for write in mock.journal.writes(requests[0].id):
        end += len(write.data)
        arrival = next((t for got, t in arrivals if got >= end), None)
        if arrival is not None:
            delays.append(max(0.0, arrival - write.time) * 1000)
    if not delays:
        return Calibration(0.0, 0.0, 0.0, 0, "the probe's stream had no writes")
    delays.sort()
    return Calibration(round(_percentile(delays, 0.5), 2), round(_percentile(delays, 0.95), 2),
                       round(delays[-1], 2), len(delays))


def machine() -> dict[str, Any]:
    """The CPU count, the 1-minute load average (None where the platform has none) and the xdist workers."""
    try:
        load: float | None = round(os.getloadavg()[0], 2)
    except (AttributeError, OSError):
        load = None
    workers = os.environ.get("PYTEST_XDIST_WORKER_COUNT")
    return {"cpu_count": os.cpu_count(), "load_average": load, "workers": int(workers) if workers else 1}
