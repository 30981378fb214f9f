"""The transport table (callproof.harness.transports): its rows, the lookups and the choices read from it."""

from __future__ import annotations

import pytest

from callproof.harness.transports import (
    DEFAULT_TRANSPORT,
    TRANSPORTS,
    TransportChoices,
    own_prefixes,
    transport,
    transport_names,
)


def test_http_is_the_default_and_the_table_names_one_vocabulary() -> None:
    assert transport_names() == ("http", "websocket")
    assert TRANSPORTS[0].name == DEFAULT_TRANSPORT == "http"
    assert list(TransportChoices()) == ["http", "websocket"]
    # `callproof check --transport` keeps its spellings: an SSE capture is `sse`, an alias of the http row
    assert list(TransportChoices(capture=True)) == ["auto", "sse", "websocket"]
    assert transport("sse") is transport("http")


def test_an_unknown_transport_names_the_ones_there_are() -> None:
    with pytest.raises(KeyError, match="the transports are http, websocket"):
        transport("carrier-pigeon")


def test_the_websocket_row_swaps_the_scheme_and_declares_its_groups() -> None:
    ws = transport("websocket")
    assert ws.url("http://127.0.0.1:8080/v1") == "ws://127.0.0.1:8080/v1"
    assert ws.url("https://example.test/v1") == "wss://example.test/v1"
    assert ws.url("ws://already") == "ws://already"
    assert transport("http").url("http://x/v1") == "http://x/v1"
    assert ws.excludes == {"framing", "equivalence"} and ws.adds == ("websocket",)
    assert ws.carries("responses") and not ws.carries("chat") and transport("http").carries("anthropic")


def test_a_transports_own_rules_and_the_sse_framing_rules_are_judged_over_it_alone() -> None:
    prefixes = own_prefixes()
    http, ws = transport("http"), transport("websocket")
    assert prefixes == ("RSP-WS-",)
    assert ws.judges("RSP-WS-001", "lifecycle", prefixes) and not http.judges("RSP-WS-001", "lifecycle", prefixes)
    assert http.judges("SSE-001", "framing", prefixes) and not ws.judges("SSE-001", "framing", prefixes)
    assert http.judges("RSP-SEQ-001", "sequence", prefixes) and ws.judges("RSP-SEQ-001", "sequence", prefixes)


def test_choices_read_the_table_when_they_are_read() -> None:
    choices = TransportChoices()
    row = TRANSPORTS[-1]
    TRANSPORTS.append(type(row)("pigeon", "Pigeon", "pigeon-capture"))
    try:
        assert "pigeon" in choices and choices[-1] == "pigeon" and len(choices) == 3
        assert "pigeon-capture" in TransportChoices(capture=True)
    finally:
        TRANSPORTS.remove(TRANSPORTS[-1])
    assert "pigeon" not in choices
