"""GW-STREAM-001/002 on fixed stamps (no clock runs): content held across an upstream pause, or the whole stream
held to its end, is buffering; the same lateness while the IUT and the harness waited for a CPU (the run's sampled
waits, `UpstreamView.waits`) is the machine's load, and a buffering gateway's own short wake-up waits excuse
nothing."""

from __future__ import annotations

import json
from collections.abc import Sequence

from callproof.harness.judge import Findings, UpstreamView, check_streaming, content_times, read_answer, waited
from callproof.harness.outcome import Chunk, Exchange

SSE = {"content-type": "text/event-stream"}


def _event(text: str) -> bytes:
    return b"data: " + json.dumps({"choices": [{"index": 0, "delta": {"content": text}}]}).encode() + b"\n\n"


#: The upstream (Chat): three content writes 100 ms apart (two pauses of GAP_MIN or more), then [DONE] at 0.21 s.
WRITES = ((0.00, _event("aaaa")), (0.10, _event("bbbb")), (0.20, _event("cccc")), (0.21, b"data: [DONE]\n\n"))


def _judged(front: Sequence[tuple[float, str]], waits: Sequence[tuple[float, float]] = ()) -> dict[str, str]:
    """{rule: outcome} of GW-STREAM-* for a Chat front that delivered each text at its time, given the waits."""
    chunks = (*(Chunk(at, _event(text)) for at, text in front), Chunk(front[-1][0], b"data: [DONE]\n\n"))
    answer = read_answer(Exchange("http://127.0.0.1:1/v1/chat/completions", {}, 0.0, 200, SSE, chunks), "openai",
                         "chat")
    findings = Findings()
    check_streaming(findings, answer, UpstreamView((), WRITES, content_times(WRITES), tuple(waits)), slack=0.010)
    return {r.rule.id: r.outcome for r in findings.results() if r.rule.id.startswith("GW-STREAM-")}


STREAMED = [(0.002, "aaaa"), (0.102, "bbbb"), (0.202, "cccc")]
#: Each text held until the upstream's next write (a gateway that flushes late) ...
HELD = [(0.101, "aaaa"), (0.101, "bbbb"), (0.201, "cccc")]
#: ... and everything held to the upstream's end (a gateway that collects the stream first).
AT_THE_END = [(0.213, "aaaa"), (0.213, "bbbb"), (0.213, "cccc")]


def test_a_streamed_answer_passes_both_rules() -> None:
    assert _judged(STREAMED) == {"GW-STREAM-001": "passed", "GW-STREAM-002": "passed"}


def test_content_held_until_the_next_write_is_buffering_without_load() -> None:
    assert _judged(HELD) == {"GW-STREAM-001": "passed", "GW-STREAM-002": "failed"}
    assert _judged(AT_THE_END) == {"GW-STREAM-001": "failed", "GW-STREAM-002": "failed"}


def test_content_held_while_the_iut_waited_for_a_cpu_is_load() -> None:
    # 80 ms of waits ended within the 101 ms the first text was held: the IUT could not run, it did not hold back
    assert _judged(HELD, [(0.0, 0.0), (0.1015, 0.080), (0.2015, 0.080)]) == {
        "GW-STREAM-001": "passed", "GW-STREAM-002": "passed"}


def test_a_stall_across_the_last_write_is_load_a_wake_up_wait_is_not() -> None:
    # 120 ms of waits ended after the last write: a stall that began well before it, so neither rule can tell
    assert _judged(AT_THE_END, [(0.0, 0.0), (0.205, 0.0), (0.214, 0.120)]) == {
        "GW-STREAM-001": "passed", "GW-STREAM-002": "passed"}
    # 5 ms of waits (waking up for the last write, as a buffering gateway does under load) excuse nothing
    assert _judged(AT_THE_END, [(0.0, 0.0), (0.205, 0.0), (0.214, 0.005)]) == {
        "GW-STREAM-001": "failed", "GW-STREAM-002": "failed"}


def test_waits_are_counted_between_the_samples_that_enclose_a_stretch() -> None:
    samples = [(1.0, 0.0), (1.1, 0.02), (1.2, 0.05), (1.3, 0.05)]
    assert waited(samples, 1.1, 1.2) == 0.05 - 0.02
    assert waited(samples, 1.05, 1.25) == 0.05  # from the sample at or before 1.05 to the one at or after 1.25
    assert waited(samples, 0.5, 1.2) == 0.0  # no sample at or before the start: nothing known, nothing excused
    assert waited((), 1.0, 2.0) == 0.0
