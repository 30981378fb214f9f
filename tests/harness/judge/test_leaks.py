"""GW-FAULT-005 (docs/spec/contracts.md §7.8.1): an answer never echoes the credentials the gateway sent upstream
or the caller sent the front. The judge on bodies here; the rule on real gateways against the real mock in
tests/harness/run/test_error_leaks.py and the mutation table (`leaks_upstream_error_body`)."""

from __future__ import annotations

import json

from callproof.harness.judge import Findings, check_error_leaks

KEY = "sk-upstream-0123456789abcdef"
UPSTREAM = json.dumps({"error": {"message": f"Incorrect API key provided. Request: POST /v1/chat/completions with "
                                            f"headers {{\"authorization\": \"Bearer {KEY}\"}}.",
                                 "type": "invalid_request_error",
                                 "request": {"url": "/v1/chat/completions?api_key=q-secret-987654321",
                                             "headers": {"authorization": f"Bearer {KEY}", "host": "127.0.0.1",
                                                         "x-api-key": "xk-abcdefgh1234"}}}}).encode()


def _judge(front: bytes, front_headers: dict[str, str] | None = None, upstream: bytes = UPSTREAM) -> Findings:
    findings = Findings()
    try:
        parsed = json.loads(front)
    except ValueError:
        parsed = None
    check_error_leaks(findings, front, parsed, upstream, front_headers or {})
    return findings


def _failures(findings: Findings) -> list[str]:
    return [f.message for r in findings.results() if r.outcome == "failed" for f in r.violations]


def test_a_redacted_error_passes() -> None:
    front = json.dumps({"error": {"message": "Incorrect API key provided. [redacted]", "type": "auth"}}).encode()
    findings = _judge(front)
    assert [(r.rule.id, r.outcome) for r in findings.results()] == [("GW-FAULT-005", "passed")]


def test_the_upstream_key_echoed_fails_naming_the_header_and_path_never_the_key() -> None:
    front = json.dumps({"error": {"message": f"upstream said: key Bearer {KEY} is wrong", "type": "auth"}}).encode()
    messages = _failures(_judge(front))
    assert len(messages) == 1
    assert "the `authorization` header the gateway sent upstream" in messages[0]
    assert "$.error.message" in messages[0]
    evidence = next(f.evidence for r in _judge(front).results() for f in r.violations)
    assert KEY not in messages[0] and KEY not in str(evidence.actual)


def test_the_bare_token_without_its_scheme_counts() -> None:
    front = json.dumps({"error": {"message": f"token {KEY}"}}).encode()
    assert _failures(_judge(front))


def test_other_credential_headers_and_the_url_key_count() -> None:
    for leaked in ("xk-abcdefgh1234", "q-secret-987654321"):
        assert _failures(_judge(json.dumps({"error": {"message": leaked}}).encode())), leaked


def test_the_key_the_front_was_sent_counts_in_a_stream_too() -> None:
    stream = b'event: error\ndata: {"type":"error","message":"bad key sk-front-abcdef123456"}\n\n'
    messages = _failures(_judge(stream, {"Authorization": "Bearer sk-front-abcdef123456"}, b"{}"))
    assert messages and "the `authorization` header the front was sent" in messages[0]


def test_no_credential_known_is_not_judged() -> None:
    findings = _judge(b'{"error": {"message": "boom"}}', upstream=b'{"error": {"message": "boom"}}')
    assert findings.results() == ()


def test_short_values_are_not_searched() -> None:
    upstream = json.dumps({"error": {"request": {"headers": {"x-api-key": "abc"}}}}).encode()
    assert _judge(b'{"error": {"message": "abc"}}', upstream=upstream).results() == ()


def test_a_routing_header_whose_name_holds_key_is_no_credential() -> None:
    """Issue #36 item 1 (docs/spec/verdicts.md §8): `x-keyvendor-provider: anthropic` echoed upstream, the provider's
    name in the front's error: passed. A whole-word `-key` header with a secret value still counts."""
    upstream = json.dumps({"error": {"request": {"headers": {
        "authorization": f"Bearer {KEY}", "x-keyvendor-provider": "anthropic",
        "x-keyvendor-api-key": "kv-0123456789"}}}}).encode()
    front = json.dumps({"error": {"message": "anthropic answered HTTP 401: Incorrect API key provided."}}).encode()
    assert [(r.rule.id, r.outcome) for r in _judge(front, upstream=upstream).results()] == [("GW-FAULT-005", "passed")]
    leaked = json.dumps({"error": {"message": "anthropic refused kv-0123456789"}}).encode()
    messages = _failures(_judge(leaked, upstream=upstream))
    assert messages and "the `x-keyvendor-api-key` header the gateway sent upstream" in messages[0]


def test_a_callers_key_passed_on_and_echoed_is_named_both_ways() -> None:
    upstream = json.dumps({"error": {"request": {"headers": {"authorization": f"Bearer {KEY}"}}}}).encode()
    front = json.dumps({"error": {"message": f"echo: Bearer {KEY}"}}).encode()
    messages = _failures(_judge(front, {"Authorization": f"Bearer {KEY}"}, upstream))
    assert messages and ("the `authorization` header the gateway sent upstream and the `authorization` header the "
                         "front was sent") in messages[0]
