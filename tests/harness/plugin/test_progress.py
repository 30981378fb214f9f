"""The progress line: what it says, that it is rewritten in place and erased, and that it is quiet off a terminal."""

from __future__ import annotations

import io

from callproof.harness.plugin._progress import Progress, progress_line


def test_the_line_counts_cases_failures_errors_and_estimates_the_time_left() -> None:
    assert progress_line(0, 996, 0, 0, 0.4) == "callproof: 0/996 cases, 0 failed, 0 errors, 0:00 elapsed"
    assert progress_line(100, 400, 3, 1, 75.0) == (
        "callproof: 100/400 cases, 3 failed, 1 error, 1:15 elapsed, ETA 3:45")
    assert progress_line(1, 2, 0, 0, 3725.0).endswith("1:02:05 elapsed, ETA 1:02:05")
    assert progress_line(1, 0, 0, 0, 1.0) == "callproof: 1/? cases, 0 failed, 0 errors, 0:01 elapsed"


def test_on_a_terminal_the_line_is_rewritten_in_place_then_erased() -> None:
    stream = io.StringIO()
    progress = Progress(True, stream, total=3)
    for outcome in ("passed", "failed", "error"):
        progress.count(outcome)
    progress.clear()
    frames = stream.getvalue().split("\r\x1b[2K")
    assert frames[0] == "" and frames[-1] == "" and len(frames) == 5
    assert [f.split(", ")[:3] for f in frames[1:4]] == [
        ["callproof: 1/3 cases", "0 failed", "0 errors"], ["callproof: 2/3 cases", "1 failed", "0 errors"],
        ["callproof: 3/3 cases", "1 failed", "1 error"]]


def test_off_a_terminal_it_writes_nothing() -> None:
    stream = io.StringIO()
    progress = Progress(False, stream, total=3)
    progress.count("failed")
    progress.clear()
    assert stream.getvalue() == "" and progress.done == 1 and progress.failed == 1
