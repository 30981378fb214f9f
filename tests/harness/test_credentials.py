"""Which names carry credentials and which values look like secrets (harness/_credentials.py): the one definition
GW-FAULT-005's judge, the run's own front credential and the reference gateway's redaction share (issue #36 item 1,
docs/spec/verdicts.md §8)."""

from __future__ import annotations

import httpx
import pytest

from callproof.harness import credential_values, is_credential_name
from examples.gateway.upstreams.base import redact_credentials


@pytest.mark.parametrize("name", [
    "Authorization", "proxy-authorization", "x-api-key", "api-key", "X-Goog-Api-Key", "cookie", "key", "api_key",
    "apikey", "x-portkey-api-key", "x-auth-token", "access_token", "x-client-secret", "db_password",
])
def test_auth_headers_and_whole_word_key_token_secret_names_are_credentials(name: str) -> None:
    assert is_credential_name(name)


@pytest.mark.parametrize("name", [
    "x-keyvendor-provider", "x-portkey-provider", "x-portkey-config", "keyword", "monkey", "x-tokenizer",
    "x-secretary", "anthropic-version", "user-agent", "x-stainless-os", "host", "content-type",
])
def test_a_name_merely_holding_a_word_is_not(name: str) -> None:
    assert not is_credential_name(name)


def test_only_secret_looking_values_count() -> None:
    assert credential_values("Authorization", "Bearer sk-abcdef123") == ["sk-abcdef123"]
    assert credential_values("authorization", "Basic dXNlcjpwYXNz") == ["dXNlcjpwYXNz"]
    assert credential_values("x-api-key", "sk-ant-callproof") == ["sk-ant-callproof"]
    assert credential_values("cookie", "session=Zx81ab9Q0pe; theme=dark") == ["Zx81ab9Q0pe"]
    assert credential_values("x-api-key", "anthropic") == []  # a plain word: a name, not a key
    assert credential_values("x-api-key", "OPENAI") == []
    assert credential_values("x-api-key", "dummy") == []  # under 8 characters: occurs by chance
    assert credential_values("x-keyvendor-provider", "sk-abcdef123") == []  # not a credential's name


def test_the_reference_gateway_redacts_what_the_judge_counts() -> None:
    """examples/gateway/ imports the definition: its redaction and the judge cannot drift apart."""
    request = httpx.Request("POST", "http://up/v1/chat/completions?key=q-987654321", headers={
        "authorization": "Bearer sk-gw-0123456789", "x-portkey-api-key": "pk-55667788", "x-keyvendor-provider":
        "anthropic"})
    text = "bad key sk-gw-0123456789, pk-55667788, q-987654321 for provider anthropic"
    assert redact_credentials(text, request) == "bad key [redacted], [redacted], [redacted] for provider anthropic"
