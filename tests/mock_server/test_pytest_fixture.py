"""The `callproof_mock` fixture as users meet it, through pytester: a real server per session (per xdist worker),
reset per test, the teardown check for unmatched requests and its marker opt-out, user scenario files."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent / "data"


def test_fixture_serves_a_bundled_scenario_to_a_real_client(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("""
        import httpx

        def test_one_call(callproof_mock):
            body = {"model": "callproof/one_call", "input": "weather?", "stream": False}
            response = httpx.post(f"{callproof_mock.url}/responses", json=body, timeout=10)
            assert response.status_code == 200
            assert [o["type"] for o in response.json()["output"]] == ["function_call"]
            (entry,) = callproof_mock.journal.requests()
            assert entry.scenario == "one_call" and entry.dialect == "responses"
    """)
    pytester.runpytest("-p", "callproof").assert_outcomes(passed=1)


def test_journal_is_reset_between_tests_on_one_server(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("""
        import httpx

        URLS = []

        def _ask(mock):
            httpx.post(f"{mock.url}/chat/completions", json={"model": "callproof/text_only", "messages": []},
                       timeout=10).raise_for_status()

        def test_first(callproof_mock):
            _ask(callproof_mock)
            URLS.append(callproof_mock.url)
            assert len(callproof_mock.journal.requests()) == 1

        def test_second(callproof_mock):
            _ask(callproof_mock)
            assert URLS == [callproof_mock.url]  # the same server, started once
            assert len(callproof_mock.journal.requests()) == 1
    """)
    pytester.runpytest("-p", "callproof").assert_outcomes(passed=2)


def test_unmatched_request_fails_the_test_at_teardown(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("""
        import httpx

        def test_typo(callproof_mock):
            response = httpx.post(f"{callproof_mock.url}/responses", json={"model": "callproof/one_cal"}, timeout=10)
            assert response.status_code == 404
    """)
    result = pytester.runpytest("-p", "callproof")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines([
        "*callproof mock: 1 request(s) selected no scenario (answered 404):",
        "*- POST /v1/responses (model 'callproof/one_cal')",
        "*or mark the test @pytest.mark.callproof_mock(assert_all_matched=False)*",
    ])


def test_marker_opts_out_of_the_teardown_check(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("""
        import httpx
        import pytest

        @pytest.mark.callproof_mock(assert_all_matched=False)
        def test_typo_on_purpose(callproof_mock):
            response = httpx.post(f"{callproof_mock.url}/responses", json={"model": "nope"}, timeout=10)
            assert response.status_code == 404
            assert "nearest" in response.text or "scenario" in response.text
    """)
    pytester.runpytest("-p", "callproof", "--strict-markers").assert_outcomes(passed=1)


def test_unknown_marker_option_is_a_clear_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("""
        import pytest

        @pytest.mark.callproof_mock(assert_all_matchd=False)
        def test_x(callproof_mock):
            pass
    """)
    result = pytester.runpytest("-p", "callproof")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ["*callproof_mock marker: unknown option(s) ?'assert_all_matchd'?; allowed: assert_all_matched*"]
    )


def test_user_scenario_files_come_from_the_ini_setting(pytester: pytest.Pytester) -> None:
    shutil.copy(DATA.parent / "dialects" / "data" / "render_quirks.json", pytester.path / "render_quirks.json")
    pytester.makeini("[pytest]\ncallproof_scenarios = render_quirks.json\n")
    pytester.makepyfile("""
        import json
        import pathlib
        import httpx

        def test_user_scenario(callproof_mock):
            first = json.loads(pathlib.Path("render_quirks.json").read_text())["scenarios"][0]["id"]
            response = httpx.post(f"{callproof_mock.url}/responses", json={"model": f"callproof/{first}"},
                                  timeout=10)
            assert response.status_code == 200
    """)
    pytester.runpytest("-p", "callproof").assert_outcomes(passed=1)


def test_mock_docs_example_runs(pytester: pytest.Pytester) -> None:
    """The example of docs/mock.md "The callproof_mock fixture", verbatim."""
    readme = (Path(__file__).resolve().parents[2] / "docs" / "mock.md").read_text(encoding="utf-8")
    section = readme[readme.index("## The `callproof_mock` fixture"):]
    example = section[section.index("```python\n") + 10 : section.index("```\n", section.index("```python"))]
    pytester.makepyfile(example)
    pytester.runpytest("-p", "callproof").assert_outcomes(passed=1)


def test_an_unfinished_sequence_fails_the_test_at_teardown(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("""
        import httpx
        import pytest

        BODY = {"model": "callproof/retry_429_twice_then_stream", "input": "[callproof:case=k1] hi", "stream": False}

        def test_gives_up_after_one_429(callproof_mock):
            assert httpx.post(f"{callproof_mock.url}/responses", json=BODY, timeout=10).status_code == 429

        @pytest.mark.callproof_mock(assert_all_legs_played=False)
        def test_opted_out(callproof_mock):
            assert httpx.post(f"{callproof_mock.url}/responses", json=BODY, timeout=10).status_code == 429

        def test_played_to_the_end(callproof_mock):
            got = [httpx.post(f"{callproof_mock.url}/responses", json=BODY, timeout=10).status_code for _ in "abc"]
            assert got == [429, 429, 200]
    """)
    result = pytester.runpytest("-p", "callproof")
    result.assert_outcomes(passed=3, errors=1)
    result.stdout.fnmatch_lines([
        "*a sequence was left unfinished*",
        "*- retry_429_twice_then_stream (case 'k1'): played legs [[]0[]], never requested [[]1, 2[]] of 3*",
    ])


@pytest.mark.timing
def test_the_virtual_clock_plays_scripted_gaps_at_once(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("""
        import time
        import httpx
        import pytest

        SCENARIO = {"id": "slow_gaps", "description": "three 100 ms gaps", "timing": {"gap_ms": 100},
                    "output": [{"type": "text", "text": "abcd", "chunk": {"size": 1}}],
                    "request": {"input": [{"role": "user", "text": "hi"}]},
                    "expect": {"status": "completed", "text": "abcd"}}
        BODY = {"model": "callproof/slow_gaps", "messages": [{"role": "user", "content": "hi"}], "stream": True}

        def _play(mock):
            httpx.post(f"{mock.root_url}/_callproof/scenarios", json=SCENARIO, timeout=10).raise_for_status()
            walls = []
            with httpx.Client(timeout=10) as client:
                for _ in range(3):  # the fastest of three: a loaded machine may delay any one request
                    start = time.monotonic()
                    response = client.post(f"{mock.url}/chat/completions", json=BODY)
                    walls.append(time.monotonic() - start)
            wall = min(walls)
            request = [r for r in mock.journal.requests() if r.dialect == "chat"][0]
            offsets = [round(w.time - request.start, 6) for w in mock.journal.writes(request.id)]
            return response, wall, offsets

        @pytest.mark.callproof_mock(virtual_clock=True)
        def test_virtual(callproof_mock):
            response, wall, offsets = _play(callproof_mock)
            assert response.status_code == 200 and response.text.count("data:") >= 6
            print(f"virtual wall {wall * 1000:.1f} ms, scripted span {(offsets[-1] - offsets[0]) * 1000:.0f} ms")
            assert wall < 0.3  # under the scripted 300 ms: a real clock never plays a schedule early
            content = [b - a for a, b in zip(offsets, offsets[1:])]
            assert sum(content) >= 0.3 and all(round(gap, 6) in (0.0, 0.1) for gap in content)

        def test_real_again(callproof_mock):
            _, wall, _ = _play(callproof_mock)
            assert wall >= 0.3
    """)
    result = pytester.runpytest("-p", "callproof", "-s")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*virtual wall * ms, scripted span * ms*"])


@pytest.mark.timing
def test_the_ini_setting_turns_the_virtual_clock_on_for_every_test(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\ncallproof_virtual_clock = true\n")
    pytester.makepyfile("""
        import time
        import httpx
        import pytest

        BODY = {"model": "callproof/timing_ttft_and_gaps", "messages": [], "stream": True}

        def _wall(mock):
            with httpx.Client(timeout=10) as client:
                walls = []
                for _ in range(3):
                    start = time.monotonic()
                    client.post(f"{mock.url}/chat/completions", json=BODY).raise_for_status()
                    walls.append(time.monotonic() - start)
            return min(walls)

        def test_on_by_ini(callproof_mock):
            assert _wall(callproof_mock) < 0.3  # under the scripted 300 ms first-token wait: no real sleep

        @pytest.mark.callproof_mock(virtual_clock=False)
        def test_off_by_marker(callproof_mock):
            assert _wall(callproof_mock) >= 0.3
    """)
    pytester.runpytest("-p", "callproof").assert_outcomes(passed=2)
