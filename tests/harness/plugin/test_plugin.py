"""The pytest plugin as users meet it: the `callproof_check` fixture and the profile settings."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
CAPTURES = ROOT / "examples" / "captures" / "responses" / "openai"


@pytest.fixture
def captures(pytester: pytest.Pytester) -> None:
    ok = next((CAPTURES / "ok").glob("*.sse"))
    broken = next((CAPTURES / "broken").glob("RSP-ID-004--*.sse"))
    pytester.makepyfile(conftest=f"""
        import pathlib
        import pytest

        @pytest.fixture
        def ok_stream():
            return pathlib.Path({str(ok)!r}).read_bytes()

        @pytest.fixture
        def broken_stream():
            return pathlib.Path({str(broken)!r}).read_bytes()
    """)


def test_fixture_passes_a_correct_stream(pytester: pytest.Pytester, captures: None) -> None:
    pytester.makepyfile("""
        def test_ok(callproof_check, ok_stream):
            report = callproof_check(ok_stream)
            assert report.failed_rules == ()
            assert report.profile == "openai"
    """)
    pytester.runpytest("-p", "callproof").assert_outcomes(passed=1)


def test_fixture_fails_with_rule_evidence_and_fix(pytester: pytest.Pytester, captures: None) -> None:
    pytester.makepyfile("""
        def test_broken(callproof_check, broken_stream):
            callproof_check(broken_stream)
    """)
    result = pytester.runpytest("-p", "callproof")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([
        "*ConformanceError: callproof: stream not conformant*",
        "*FAIL RSP-ID-004 ?MUST? Every function_call item has a non-empty `call_id`.*",
        "*fix: Set call_id on the item*",
    ])


def test_fixture_returns_the_report_when_asked_not_to_raise(pytester: pytest.Pytester, captures: None) -> None:
    pytester.makepyfile("""
        def test_broken(callproof_check, broken_stream):
            report = callproof_check(broken_stream, raise_on_failure=False)
            assert report.failed_rules == ("RSP-ID-004",)
    """)
    pytester.runpytest("-p", "callproof").assert_outcomes(passed=1)


def test_fixture_checks_decoded_events(pytester: pytest.Pytester) -> None:
    pytester.makepyfile("""
        def test_events(callproof_check):
            report = callproof_check([{"type": "response.output_text.delta"}], raise_on_failure=False)
            assert report.kind == "events"
            assert "RSP-LIFE-001" in report.failed_rules
            assert all(r.outcome == "not-applicable" for r in report.results if r.rule.family == "framing")
    """)
    pytester.runpytest("-p", "callproof").assert_outcomes(passed=1)


@pytest.mark.parametrize("how", ["option", "ini"])
def test_profile_comes_from_option_or_ini(pytester: pytest.Pytester, captures: None, how: str) -> None:
    pytester.makepyfile("""
        def test_profile(callproof_check, ok_stream):
            assert callproof_check(ok_stream, raise_on_failure=False).profile == "lenient"
    """)
    if how == "ini":
        pytester.makeini("[pytest]\ncallproof_profile = lenient\n")
        result = pytester.runpytest("-p", "callproof")
    else:
        result = pytester.runpytest("-p", "callproof", "--callproof-profile", "lenient")
    result.assert_outcomes(passed=1)


def test_bad_ini_profile_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\ncallproof_profile = strictest\n")
    pytester.makepyfile("def test_x(callproof_check):\n    pass\n")
    result = pytester.runpytest("-p", "callproof")
    result.stdout.fnmatch_lines(["*callproof_profile = 'strictest' is not a profile; use one of openai*"])
    assert result.ret != 0


def test_option_is_listed_in_help(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("-p", "callproof", "--help")
    result.stdout.fnmatch_lines(["*callproof: tool-call streaming conformance*", "*--callproof-profile*"])
