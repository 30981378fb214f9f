"""The run's own front credential (issue #36 item 9, docs/cli.md#the-runs-own-credential, docs/spec/verdicts.md
§10): a realistic key of the front's dialect in its auth header, new each run, replaced by a `--header` naming a
credential, dropped by `--header NAME:` with no value, and never shown. Its judging on real gateways is in
test_error_leaks.py."""

from __future__ import annotations

import pytest

from callproof.harness import credential_values
from callproof.harness._types import Dialect
from callproof.harness.run import RunConfig


def _config(front: Dialect = "responses", headers: tuple[str, ...] = ()) -> RunConfig:
    return RunConfig(target="http://127.0.0.1:1/v1/x", mock_port=1, front=front, headers=headers)


@pytest.mark.parametrize(("front", "prefix"), [
    ("responses", "Bearer sk-callproof-"), ("chat", "Bearer sk-callproof-"), ("anthropic", "Bearer sk-ant-callproof-"),
])
def test_the_front_gets_a_key_of_its_dialect_as_the_sdks_send_one(front: Dialect, prefix: str) -> None:
    """openai-python 3.54.0 (`lib/_client_auth.py`) and anthropic-sdk-python 2.14.0 (`Anthropic._api_key_auth`) both
    send their key as `Authorization: Bearer <key>`."""
    headers = _config(front).front_headers
    assert list(headers) == ["authorization"] and headers["authorization"].startswith(prefix)
    assert len(headers["authorization"]) == len(prefix) + 32
    assert credential_values("authorization", headers["authorization"]), "a credential to GW-FAULT-005"


def test_each_run_makes_its_own_and_keeps_it() -> None:
    one, other = _config(), _config()
    assert one.front_headers == one.front_headers  # the same key for every request of a run
    assert one.front_headers != other.front_headers  # not a constant a gateway could allow for
    assert one == other  # configurations still compare by their options (harnesses are shared by them)


def test_a_header_naming_a_credential_replaces_it_and_an_empty_one_drops_it() -> None:
    assert _config(headers=("Authorization:Bearer mine-123456",)).front_headers == {
        "Authorization": "Bearer mine-123456"}
    assert _config("anthropic", ("authorization:Bearer mine-123456",)).front_headers == {
        "authorization": "Bearer mine-123456"}
    assert _config(headers=("x-api-key:mine-123456",)).front_headers == {"x-api-key": "mine-123456"}
    assert _config(headers=("Authorization:",)).front_headers == {}
    assert _config(headers=("Authorization:", "X-Tenant:t1")).front_headers == {"X-Tenant": "t1"}
    other = _config(headers=("X-Tenant:t1",)).front_headers
    assert list(other) == ["authorization", "X-Tenant"] and other["X-Tenant"] == "t1"


def test_it_is_never_shown() -> None:
    config = _config()
    key = config.front_headers["authorization"].partition(" ")[2]
    secret = key.removeprefix("sk-callproof-")
    for shown in (repr(config), str(config), " ".join(config.run_args()), config.repro("one_call::framing"),
                  str(config.target_json())):
        assert secret not in shown
