"""The run's calibration: its own mock -> harness delay, measured once per process by a direct probe, and the
CPU waits of the run's processes, sampled for as long as the run plays.

The mock streams a short paced scenario straight to the harness's HTTP client (no IUT between them). Each write's
delay is the harness's arrival stamp of its last byte minus the journal's write stamp (one monotonic clock). The
figures go into the report, with the CPU count, the load average and the number of workers, so that a reader can
judge a timing verdict; the slack of the causal timing rule (GW-STREAM-002) is derived from them.

A probe at the start cannot see the load of a later moment, so while the run plays, `CPUWaits` samples how long
the IUT's processes and the harness's threads have been runnable but waiting for a CPU (the kernel's own count, in
/proc/<pid>/task/<tid>/schedstat; a case reads the IUT's and those of the thread that read its answer): CPU-bound
competitors show there as the time a streaming gateway could not forward, where a buffering one sits idle, waiting
for nothing. The timing rules (GW-STREAM-001/002) read those waits over each case's own stretches: lateness the
waits can account for is no verdict of one play, and the case is played again (docs/spec/contracts.md §7.8).
"""

from __future__ import annotations

import os
import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import Any

import httpx

from callproof.harness.judge import DEFAULT_SLACK, UpstreamView, waited
from callproof.harness.request import new_case_tag
from callproof.harness.scenario import markers
from callproof.mock_server import MockServer

from ._http_exchange import exchange

__all__ = ["PROBE_SCENARIO", "RESCAN", "TICK", "CPUWaits", "Calibration", "calibrate", "cpu_wait", "machine"]

#: The bundled scenario the probe plays: text paced at 40 tokens per second, a dozen or so writes.
PROBE_SCENARIO = "timing_tokens_per_second"
#: The slack is never below this, nor below 3 x the probe's p95.
MIN_SLACK = 0.005
#: CPUWaits samples the run's CPU waits this often ...
TICK = 0.004
#: ... and looks again for the processes' threads and children every this many samples.
RESCAN = 25


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


def cpu_wait(upstream: UpstreamView) -> dict[str, float]:
    """{"cpu_wait_ms": how long the IUT and the harness waited for a CPU while the upstream wrote}, {} without
    samples: the load the timing rules' verdict took into account."""
    if not upstream.waits or not upstream.writes:
        return {}
    return {"cpu_wait_ms": round(waited(upstream.waits, upstream.writes[0][0], upstream.writes[-1][0]) * 1000, 1)}


def _schedstat(fd: int) -> int:
    """Nanoseconds a thread has spent runnable but waiting for a CPU: the second field of its schedstat file, read
    afresh from the start of the open file (one pread: an eighth of the CPU of opening it every sample)."""
    try:
        return int(os.pread(fd, 128, 0).split()[1])
    except (OSError, ValueError, IndexError):  # the thread has ended
        return 0


def _readable(fd: int) -> bool:
    try:
        return bool(os.pread(fd, 128, 0))
    except OSError:
        return False


class _Open:
    """The schedstat files sampled, kept open between samples: `use(paths)` opens the new ones, closes those no longer
    wanted and reopens those whose thread ended (its id may be a new thread's now: ids are reused), returning {path:
    descriptor} (a file that could not be opened is left out, as an ended thread)."""

    def __init__(self) -> None:
        self._fds: dict[str, int] = {}

    def use(self, paths: list[str]) -> dict[str, int]:
        wanted = set(paths)
        for path in [p for p, fd in self._fds.items() if p not in wanted or not _readable(fd)]:
            os.close(self._fds.pop(path))
        for path in paths:
            if path not in self._fds:
                try:
                    self._fds[path] = os.open(path, os.O_RDONLY)
                except OSError:
                    continue
        return {path: self._fds[path] for path in paths if path in self._fds}

    def close(self) -> None:
        self.use([])


def _threads(pid: int | str, skip: str = "") -> list[str]:
    """The schedstat files of the threads of process `pid` ("self": this one) but `skip`, and of its children's."""
    files: list[str] = []
    todo: list[int | str] = [pid]
    while todo:
        process = todo.pop()
        try:
            tids = os.listdir(f"/proc/{process}/task")
        except OSError:
            continue
        for tid in tids:
            if tid != skip:
                files.append(f"/proc/{process}/task/{tid}/schedstat")
            if process != "self":
                try:
                    with open(f"/proc/{process}/task/{tid}/children", "rb") as children:
                        todo.extend(int(child) for child in children.read().split())
                except (OSError, ValueError):
                    continue
    return files


@dataclass(frozen=True, slots=True)
class _Sample:
    """One sample: when, the IUT's waits so far (seconds, its threads summed) and each harness thread's (by id)."""

    time: float
    iut: float
    harness: dict[int, float]


class CPUWaits:
    """While started, a daemon thread samples every TICK how long the IUT (`follow(pid)`: a launched gateway and its
    children) and each of the harness's own threads have waited for a CPU. A case reads the IUT's waits and those
    of its own reader thread (whose waits delay the arrival stamps), not those of the harness's other threads (other
    cases, the mock: the journal stamps a write when it happened). The kernel counts a wait when it ends, so a
    stretch's waits show by the first sample after the thread ran again. Linux only (/proc/<pid>/task/<tid>/
    schedstat); elsewhere nothing waits and the timing rules judge as without it."""

    def __init__(self, keep: int = 15_000) -> None:
        self._samples: deque[_Sample] = deque(maxlen=keep)
        self._pid: int | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._sampled = threading.Condition(self._lock)

    def follow(self, pid: int | None) -> None:
        """Count the waits of process `pid` and its children from the next sample on (None: no IUT process)."""
        self._pid = pid

    def start(self) -> CPUWaits:
        """Start sampling (once: later calls do nothing)."""
        with self._lock:
            if self._thread is None and not self._stop.is_set():
                self._thread = threading.Thread(target=self._watch, name="callproof-cpu-waits", daemon=True)
                self._thread.start()
        return self

    def stop(self) -> None:
        """Stop sampling; the samples stay readable."""
        self._stop.set()
        with self._sampled:
            thread = self._thread
            self._sampled.notify_all()
        if thread is not None:
            thread.join(5)

    def _watch(self) -> None:
        me = str(threading.get_native_id())
        last: dict[str, int] = {}
        opened = _Open()
        own: dict[int, int] = {}
        files: dict[str, int] = {}
        followed: int | None = None
        total = count = 0
        try:
            while not self._stop.wait(TICK):
                pid = self._pid
                if count % RESCAN == 0 or pid != followed:  # threads and children come and go
                    mine, theirs = _threads("self", me), _threads(pid) if pid is not None else []
                    fds = opened.use(mine + theirs)
                    own = {int(path.split("/")[4]): fds[path] for path in mine if path in fds}
                    files, followed = {path: fds[path] for path in theirs if path in fds}, pid
                count += 1
                now: dict[str, int] = {path: _schedstat(fd) for path, fd in files.items()}
                total += sum(max(0, waited - last.get(path, waited)) for path, waited in now.items())
                last = now
                harness = {tid: _schedstat(fd) / 1e9 for tid, fd in own.items()}
                with self._sampled:
                    self._samples.append(_Sample(time.monotonic(), total / 1e9, harness))
                    self._sampled.notify_all()
        finally:
            opened.close()

    def between(self, start: float, end: float, reader: int | None = None,
                patience: float = 1.0) -> tuple[tuple[float, float], ...]:
        """(time, seconds waited so far by the IUT and the harness thread `reader`, a native thread id) from the last
        sample at or before `start` to the first at or after `end`, waiting up to `patience` seconds for that one
        while sampling runs."""
        with self._sampled:
            self._sampled.wait_for(lambda: self._thread is None or self._stop.is_set()
                                   or (bool(self._samples) and self._samples[-1].time >= end), patience)
            samples = tuple(self._samples)
        first = next((i for i in range(len(samples) - 1, -1, -1) if samples[i].time <= start), 0)
        last = next((i for i in range(first, len(samples)) if samples[i].time >= end), len(samples) - 1)
        return tuple((s.time, s.iut + (s.harness.get(reader, 0.0) if reader is not None else 0.0))
                     for s in samples[first:last + 1])
