"""The run's CPU waits (harness/run/_calibrate.py, CPUWaits): the kernel's count of how long a followed process was
runnable but waiting for a CPU, sampled while the run plays; the timing rules read them (tests/harness/judge/
test_streaming.py)."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from callproof.harness.judge import waited
from callproof.harness.run._calibrate import CPUWaits, _Open, _readable, _schedstat

HOG = [sys.executable, "-c", "while True: pass"]


@pytest.mark.skipif(not Path("/proc/self/schedstat").exists() or not hasattr(os, "sched_setaffinity"),
                    reason="the kernel's per-thread CPU waits are read from /proc/<pid>/task/<tid>/schedstat (Linux)")
def test_a_followed_process_that_shares_its_cpu_with_a_competitor_shows_its_waits() -> None:
    """Two CPU-bound processes on one CPU: each waits about half the time, whatever else the machine does (more
    load only makes the waits longer), and the followed one's waits reach the samples."""
    cpu = min(os.sched_getaffinity(0))
    hogs = [subprocess.Popen(HOG) for _ in range(2)]
    waits = CPUWaits()
    try:
        for hog in hogs:
            os.sched_setaffinity(hog.pid, {cpu})
        waits.follow(hogs[0].pid)
        waits.start()
        time.sleep(0.1)  # the first samples, then a stretch of half a second
        start = time.monotonic()
        time.sleep(0.5)
        end = time.monotonic()
        samples = waits.between(start, end)
    finally:
        waits.stop()
        for hog in hogs:
            hog.kill()
            hog.wait(10)
    assert samples[0][0] <= start and samples[-1][0] >= end
    assert all(a[1] <= b[1] for a, b in itertools.pairwise(samples))  # a running count
    assert waited(samples, start, end) >= 0.1  # about 0.25 s on an idle machine


def test_stopped_waits_answer_at_once_with_what_was_sampled() -> None:
    waits = CPUWaits().start()
    time.sleep(0.05)
    waits.stop()
    began = time.monotonic()
    samples = waits.between(0.0, began + 60, patience=30)  # no sample comes after the stop: no waiting for one
    assert time.monotonic() - began < 10 and len(samples) >= 1


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="threads' schedstat files are Linux's /proc")
def test_a_kept_schedstat_file_of_an_ended_thread_is_reopened_or_dropped() -> None:
    """The sampler keeps each thread's file open between samples; once the thread ends (its id may then be a new
    thread's: ids are reused), the next rescan closes the dead file and keeps none that reads nothing."""
    done = threading.Event()
    waiter = threading.Thread(target=done.wait)
    waiter.start()
    path = f"/proc/self/task/{waiter.native_id}/schedstat"
    opened = _Open()
    try:
        first = opened.use([path])
        assert list(first) == [path] and _schedstat(first[path]) >= 0
        assert opened.use([path]) == first  # a live thread's file stays open: one pread a sample
        done.set()
        waiter.join()  # the OS thread may still be ending: wait until its file reads nothing (bounded)
        deadline = time.monotonic() + 30
        while _readable(first[path]) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not _readable(first[path])
        again = opened.use([path])  # the dead file closed; the path opened again only if a new thread has its id
        assert all(_readable(fd) for fd in again.values()), again
    finally:
        opened.close()
