"""The player turns scenarios into plans exactly as scripted: offsets, coalesced writes and every fault, all
byte-exact and reproducible from the seed. A tiny fake renderer keeps the expected bytes readable; the cases are in
tests/mock_server/data/player_cases.json. The server tests (test_faults.py) play the real renderers on the wire."""

from __future__ import annotations

import asyncio
import json
import random
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from callproof.harness.scenario import Chunked, Fault, Scenario
from callproof.mock_server import Plan, VirtualClock, load_scenarios, make_plan
from callproof.mock_server._player import play
from callproof.mock_server.dialects import Dialect, Frame, RenderContext, Rendered


class FakeRenderer:
    """One frame to open, one content frame per fragment, one terminal frame; numbered like Responses events."""

    dialect: Dialect = "responses"

    def stream(self, scenario: Scenario, ctx: RenderContext) -> Rendered:
        frames = [Frame(b'data: {"sequence_number":0,"type":"start"}\n\n')]
        for step in scenario.steps:
            output = scenario.output[step.output]
            assert isinstance(output, Chunked)
            text = output.fragments[step.fragment]
            payload = json.dumps({"sequence_number": len(frames), "type": "delta", "delta": text}, ensure_ascii=False)
            frames.append(Frame(f"data: {payload}\n\n".encode(), content=True, tokens=len(text) / 4))
        last = "failed" if scenario.ending == "failed" else "end"
        frames.append(Frame(f'data: {{"sequence_number":{len(frames)},"type":"{last}"}}\n\n'.encode()))
        return Rendered("responses", tuple(frames))

    def body(self, scenario: Scenario, ctx: RenderContext) -> dict[str, Any]:
        return {"status": "failed" if scenario.ending == "failed" else "completed", "text": "abcdefgh"}

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        return {"error": {"status": status, "message": message}}

    def tool_name_error(self, index: int, field: str, problem: str) -> tuple[str, dict[str, str]]:
        return f"tools[{index}].{field}: {problem}", {}


RENDERER = FakeRenderer()
CTX = RenderContext()
CASES = load_scenarios([Path(__file__).parent / "data" / "player_cases.json"])
BASE = CASES["pl_base"]  # "abcdefgh" as four 2-character fragments
FRAMES = RENDERER.stream(BASE, CTX).frames  # start, 4 deltas, end


def plan(scenario: Scenario = BASE, *, stream: bool = True, seed: int = 0, speed: float = 1.0) -> Plan:
    return make_plan(scenario, RENDERER, CTX, stream=stream, rng=random.Random(seed), speed=speed)


def frames_of(p: Plan) -> list[bytes]:
    return [b + b"\n\n" for b in p.wire.split(b"\n\n") if b]


# -- timing --------------------------------------------------------------------------------------------------


def test_frames_due_together_are_one_write() -> None:
    p = plan()
    assert [w.at for w in p.writes] == [0.0]
    assert p.wire == b"".join(f.data for f in FRAMES)
    assert p.status == 200 and p.media_type == "text/event-stream" and ("cache-control", "no-cache") in p.headers
    assert p.events == 6 and not p.abort


def test_gap_and_ttft_and_first_byte_give_one_write_per_frame_at_absolute_offsets() -> None:
    p = plan(CASES["pl_first_byte_ttft_gap"])
    assert p.first_byte == pytest.approx(0.010)
    # start at the headers; the first delta waits for ttft (measured from the stream start); then 20 ms gaps.
    assert [round(w.at, 6) for w in p.writes] == [0.010, 0.100, 0.120, 0.140, 0.160, 0.180]
    assert [w.data for w in p.writes] == [f.data for f in FRAMES]


def test_tokens_per_s_paces_content_frames_and_speed_scales_everything() -> None:
    p = plan(CASES["pl_tokens_per_s"], speed=2.0)
    # each delta is 2 characters = 0.5 token = 10 ms at 50 tokens/s; plus the 10 ms gap; halved by speed 2.
    assert [round(w.at, 6) for w in p.writes] == [0.0, 0.010, 0.020, 0.030, 0.040, 0.045]


def test_explicit_delays_replace_the_computed_delay() -> None:
    p = plan(CASES["pl_delays"])
    # start at 0 (no gap before frame 0); deltas 0-2 after 1, 0, 0 ms; delta 3 after 30 ms; the end after the 5 ms gap
    assert [round(w.at, 6) for w in p.writes] == [0.0, 0.001, 0.031, 0.036]
    assert p.writes[1].data == FRAMES[1].data + FRAMES[2].data + FRAMES[3].data


def test_jitter_is_seeded_and_bounded() -> None:
    scenario = CASES["pl_jitter"]
    one, again, other = plan(scenario, seed=7), plan(scenario, seed=7), plan(scenario, seed=8)
    assert one == again and one.writes != other.writes
    gaps = [b.at - a.at for a, b in zip(one.writes, one.writes[1:], strict=False)]
    assert all(0.010 <= g <= 0.015 for g in gaps), gaps


def test_raw_frames_play_verbatim_with_their_own_delays() -> None:
    scenario = CASES["pl_raw"]
    raw = scenario.raw["responses"]
    p = plan(scenario)
    assert [(round(w.at, 6), w.data) for w in p.writes] == [(0.0, raw[0].data), (0.040, raw[1].data)]


# -- faults --------------------------------------------------------------------------------------------------


def test_http_error_429_carries_retry_after_and_rate_limit_headers() -> None:
    p = plan(CASES["pl_http_error_429"])
    headers = dict(p.headers)
    assert p.status == 429 and p.body is not None and not p.writes
    error = json.loads(p.body)["error"]
    assert error["status"] == 429 and "Rate limit" in error["message"]
    assert headers["retry-after"] == "3" and headers["retry-after-ms"] == "2500"
    assert headers["x-ratelimit-remaining-requests"] == "0" and headers["x-ratelimit-reset-requests"] == "2.5s"
    assert p.faults == ("http_error",)


@pytest.mark.parametrize("status", [400, 401, 404, 500, 503])
def test_http_error_uses_the_renderers_error_body(status: int) -> None:
    p = plan(CASES[f"pl_http_error_{status}"])
    assert p.status == status and p.body == json.dumps({"error": {"status": status, "message": "nope"}},
                                                       separators=(",", ":")).encode()
    assert "retry-after" not in dict(p.headers)


def test_disconnect_after_events_keeps_exactly_those_events_then_aborts() -> None:
    p = plan(CASES["pl_disconnect_after_events"])
    assert p.abort and p.wire == FRAMES[0].data + FRAMES[1].data
    assert p.end_at == pytest.approx(0.020)  # the connection drops when the third event was due


def test_disconnect_after_bytes_cuts_mid_frame() -> None:
    p = plan(CASES["pl_disconnect_after_bytes"])
    assert p.abort and p.wire == b"".join(f.data for f in FRAMES)[:50]


def test_truncate_drops_the_terminal_event_and_ends_cleanly() -> None:
    p = plan(CASES["pl_truncate"])
    assert not p.abort and p.wire == b"".join(f.data for f in FRAMES[:-1])


def test_malformed_replaces_one_frame_with_invalid_json() -> None:
    p = plan(CASES["pl_malformed_after_events"])
    frames = frames_of(p)
    assert len(frames) == len(FRAMES) and frames[:2] == [f.data for f in FRAMES[:2]]
    assert frames[3:] == [f.data for f in FRAMES[3:]]
    bad = frames[2].decode()
    assert bad.startswith("data: {") and FRAMES[2].data.decode().startswith(bad.rstrip("\n"))
    with pytest.raises(ValueError, match=r"Unterminated|Expecting"):
        json.loads(bad[5:].strip())


def test_stall_delays_everything_after_n_events() -> None:
    p = plan(CASES["pl_stall"])
    assert [(round(w.at, 6), w.data) for w in p.writes] == [
        (0.0, FRAMES[0].data + FRAMES[1].data + FRAMES[2].data),
        (0.3, FRAMES[3].data + FRAMES[4].data + FRAMES[5].data),
    ]


def test_keepalive_comments_follow_every_n_events() -> None:
    p = plan(CASES["pl_keepalive_2"])
    comment = b": keep-alive\n\n"
    f = [x.data for x in FRAMES]
    assert p.wire == f[0] + f[1] + comment + f[2] + f[3] + comment + f[4] + f[5] + comment


def test_fragment_splits_every_write_into_k_bytes() -> None:
    p = plan(CASES["pl_fragment"])
    assert p.wire == b"".join(f.data for f in FRAMES)
    assert all(len(w.data) <= 3 for w in p.writes)
    assert len(p.writes) == sum(-(-len(f.data) // 3) for f in FRAMES)


def test_fragment_splits_inside_a_code_point() -> None:
    p = plan(CASES["pl_code_point"])
    assert b"\xc3" in [w.data for w in p.writes] and b"\xa9" in [w.data for w in p.writes]


def test_crlf_rewrites_every_line_end() -> None:
    p = plan(CASES["pl_crlf_keepalive_3"])
    assert b"\n" not in p.wire.replace(b"\r\n", b"")
    assert p.wire.replace(b"\r\n", b"\n") == plan(CASES["pl_keepalive_3"]).wire


def test_slow_first_byte_delays_the_headers() -> None:
    p = plan(CASES["pl_slow_first_byte"], speed=2)
    assert p.first_byte == pytest.approx(0.150) and p.writes[0].at == pytest.approx(0.150)


def test_stream_error_after_events_ends_with_the_dialects_failure_frame_renumbered() -> None:
    p = plan(CASES["pl_stream_error_after_events"])
    frames = frames_of(p)
    assert frames[:2] == [f.data for f in FRAMES[:2]]
    assert json.loads(frames[2][5:]) == {"sequence_number": 2, "type": "failed"}
    assert len(frames) == 3 and not p.abort


def test_stream_error_without_position_plays_the_failed_ending() -> None:
    p = plan(CASES["pl_stream_error"])
    assert frames_of(p)[-1] == b'data: {"sequence_number":5,"type":"failed"}\n\n'


def test_probability_draws_from_the_seeded_generator() -> None:
    scenario = CASES["pl_truncate_half"]
    outcomes = [plan(scenario, seed=seed).faults for seed in range(40)]
    assert {(), ("truncate",)} == set(outcomes)
    assert outcomes == [plan(scenario, seed=seed).faults for seed in range(40)]
    assert plan(CASES["pl_truncate_never"]).faults == ()


def test_the_first_firing_fault_of_a_kind_wins() -> None:
    scenario = CASES["pl_http_error_first_firing"]
    assert plan(scenario).status == 503


def test_non_stream_answers_the_renderers_body() -> None:
    p = plan(stream=False)
    assert p.body == b'{"status":"completed","text":"abcdefgh"}' and p.media_type == "application/json"
    assert not p.streamed


@pytest.mark.parametrize(
    ("case", "wire", "abort"),
    [
        ("pl_truncate_after_bytes", b'{"status":', False),
        ("pl_disconnect_after_4_bytes", b'{"st', True),
        ("pl_malformed", b'{"status":"completed', False),
    ],
)
def test_non_stream_byte_faults_cut_the_body(case: str, wire: bytes, abort: bool) -> None:
    p = plan(CASES[case], stream=False)
    assert p.streamed and p.wire == wire and p.abort is abort


def test_non_stream_stream_error_answers_the_failed_body() -> None:
    assert plan(CASES["pl_stream_error"], stream=False).body == b'{"status":"failed","text":"abcdefgh"}'


def test_invalid_speed_is_rejected() -> None:
    with pytest.raises(ValueError, match="speed must be positive"):
        plan(speed=0)


# -- playing -------------------------------------------------------------------------------------------------


@pytest.mark.timing
def test_virtual_clock_plays_the_schedule_exactly_without_sleeping() -> None:
    p = plan(CASES["pl_virtual_clock"])
    clock = VirtualClock(start=100.0)

    async def run() -> list[tuple[float, bytes]]:
        return [(clock.now(), data) async for data in play(p, clock, 100.0)]

    began = time.monotonic()
    played = asyncio.run(run())
    assert time.monotonic() - began < 3.5  # faster than the 3.5 scripted seconds a real clock would take
    assert [(round(t - 100.0, 6), d) for t, d in played] == [(round(w.at, 6), w.data) for w in p.writes]
    assert played[-1][0] == pytest.approx(103.5)


def test_responses_failure_after_n_events_lists_only_the_items_sent() -> None:
    from callproof.harness import check_bytes, parse_sse
    from callproof.mock_server import bundled_scenarios
    from callproof.mock_server.dialects import RENDERERS

    scenario = bundled_scenarios()["parallel_two_calls"]
    renderer = RENDERERS["responses"]
    full = [json.loads(e.data) for e in parse_sse(renderer.stream(scenario, CTX).body)[0]]
    first_done = next(i for i, e in enumerate(full) if e["type"] == "response.output_item.done")
    cut = first_done + 2  # the first call is done, the second one only added
    faulty = replace(scenario, faults=(Fault("stream_error", params={"after_events": cut}),))
    wire = make_plan(faulty, renderer, CTX, stream=True, rng=random.Random(0)).wire
    events = [json.loads(e.data) for e in parse_sse(wire)[0]]
    assert len(events) == cut + 1 and events[-1]["type"] == "response.failed"
    assert [o["id"] for o in events[-1]["response"]["output"]] == [full[first_done]["item"]["id"]]
    assert check_bytes(wire).failed_rules == ()  # a coherent failed stream
