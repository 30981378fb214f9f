"""GW-STREAM-001/002 on fixed stamps (no clock runs): content held across an upstream pause, or the whole stream
held to its end, is buffering; the same lateness while the IUT and the harness waited for a CPU (the run's sampled
waits, `UpstreamView.waits`) may be the machine's load, a `loaded` violation the harness plays again, and a
buffering gateway's own short wake-up waits make nothing `loaded`."""

from __future__ import annotations

import json
from collections.abc import Sequence

from callproof.harness.judge import (
    STREAM_PLAYS,
    Findings,
    UpstreamView,
    check_streaming,
    content_times,
    read_answer,
    waited,
)
from callproof.harness.outcome import Chunk, Exchange

SSE = {"content-type": "text/event-stream"}


def _event(text: str) -> bytes:
    return b"data: " + json.dumps({"choices": [{"index": 0, "delta": {"content": text}}]}).encode() + b"\n\n"


#: The upstream (Chat): three content writes 100 ms apart (two pauses of GAP_MIN or more), then [DONE] at 0.21 s.
WRITES = ((0.00, _event("aaaa")), (0.10, _event("bbbb")), (0.20, _event("cccc")), (0.21, b"data: [DONE]\n\n"))


def _judged(front: Sequence[tuple[float, str]], waits: Sequence[tuple[float, float]] = ()) -> dict[str, str]:
    """{rule: outcome} of GW-STREAM-* for a Chat front that delivered each text at its time, given the waits; a
    failure all of whose violations are `loaded` is "loaded"."""
    chunks = (*(Chunk(at, _event(text)) for at, text in front), Chunk(front[-1][0], b"data: [DONE]\n\n"))
    answer = read_answer(Exchange("http://127.0.0.1:1/v1/chat/completions", {}, 0.0, 200, SSE, chunks), "openai",
                         "chat")
    findings = Findings()
    check_streaming(findings, answer, UpstreamView((), WRITES, content_times(WRITES), tuple(waits)), slack=0.010)
    return {r.rule.id: "loaded" if r.violations and all(v.loaded for v in r.violations) else r.outcome
            for r in findings.results() if r.rule.id.startswith("GW-STREAM-")}


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


def test_content_held_while_the_iut_waited_for_a_cpu_may_be_load() -> None:
    # 80 ms of waits ended within the 101 ms the first text was held: the IUT may not have run, so one play of it
    # is no verdict: the violation is loaded (the harness plays the case again)
    assert _judged(HELD, [(0.0, 0.0), (0.1015, 0.080), (0.2015, 0.080)]) == {
        "GW-STREAM-001": "passed", "GW-STREAM-002": "loaded"}


def test_a_stall_across_the_last_write_may_be_load_a_wake_up_wait_is_not() -> None:
    # 120 ms of waits ended after the last write: a stall that began well before it, so neither rule can tell
    assert _judged(AT_THE_END, [(0.0, 0.0), (0.205, 0.0), (0.214, 0.120)]) == {
        "GW-STREAM-001": "loaded", "GW-STREAM-002": "loaded"}
    # 5 ms of waits (waking up for the last write, as a buffering gateway does under load) leave it buffering
    assert _judged(AT_THE_END, [(0.0, 0.0), (0.205, 0.0), (0.214, 0.005)]) == {
        "GW-STREAM-001": "failed", "GW-STREAM-002": "failed"}


def test_a_pause_held_under_load_does_not_hide_one_held_without_it() -> None:
    # the first pause's hold is covered by 80 ms of waits, the second's by none: buffering, not loaded
    assert _judged(HELD, [(0.0, 0.0), (0.1015, 0.080), (0.2015, 0.081)]) == {
        "GW-STREAM-001": "passed", "GW-STREAM-002": "loaded"}
    held_twice = [(0.101, "aaaa"), (0.201, "bbbb"), (0.201, "cccc")]
    assert _judged(held_twice, [(0.0, 0.0), (0.1, 0.080), (0.1015, 0.080), (0.2015, 0.081)]) == {
        "GW-STREAM-001": "passed", "GW-STREAM-002": "failed"}


def test_a_loaded_violation_says_so_and_how_much_the_iut_waited() -> None:
    chunks = (*(Chunk(at, _event(text)) for at, text in AT_THE_END), Chunk(0.213, b"data: [DONE]\n\n"))
    answer = read_answer(Exchange("http://127.0.0.1:1/v1/chat/completions", {}, 0.0, 200, SSE, chunks), "openai",
                         "chat")
    findings = Findings()
    check_streaming(findings, answer, UpstreamView((), WRITES, content_times(WRITES),
                                                   ((0.0, 0.0), (0.205, 0.0), (0.214, 0.120))))
    first = next(r for r in findings.results() if r.rule.id == "GW-STREAM-001").violations[0]
    assert first.loaded
    assert "waited for a CPU for 120 ms of those 213 ms" in first.message, first.message
    assert f"up to {STREAM_PLAYS} plays" in first.message


def test_waits_are_counted_between_the_samples_that_enclose_a_stretch() -> None:
    samples = [(1.0, 0.0), (1.1, 0.02), (1.2, 0.05), (1.3, 0.05)]
    assert waited(samples, 1.1, 1.2) == 0.05 - 0.02
    assert waited(samples, 1.05, 1.25) == 0.05  # from the sample at or before 1.05 to the one at or after 1.25
    assert waited(samples, 0.5, 1.2) == 0.0  # no sample at or before the start: nothing known, nothing loaded
    assert waited((), 1.0, 2.0) == 0.0
