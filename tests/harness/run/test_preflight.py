"""The preflight: before any case, the implementation under test is started (or reached, or imported) once, and
what keeps it from starting is one line naming the cause; a preflight that passes hands over the started harness."""

from __future__ import annotations

import socket
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from callproof.harness.run import RunConfig, free_port, preflight
from tests import fakes


@pytest.fixture
def listening() -> Iterator[int]:
    """A port that accepts connections and never answers."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(16)
        yield sock.getsockname()[1]


def problem(config: RunConfig) -> str | None:
    harness, why = preflight(config, keep=False)
    assert harness is None
    return why


def test_a_gateway_that_exits_at_once_is_one_line_with_its_exit_status_and_last_stderr_line() -> None:
    why = problem(RunConfig(launch=f"{sys.executable} -c \"import sys; sys.exit('boom: config missing')\" {{port}}"))
    assert why is not None and "\n" not in why
    assert why.startswith("the IUT did not start: it exited before it was ready (exit status 1); its last stderr "
                          "line: 'boom: config missing'; command: [")


def test_a_missing_program_is_named() -> None:
    assert problem(RunConfig(launch="callproof-no-such-gateway --port {port}")) == (
        "--launch could not run 'callproof-no-such-gateway': No such file or directory; check the command and PATH")


def test_a_target_nobody_serves_is_the_refused_connection(listening: int) -> None:
    port, mock = free_port(), free_port()
    assert problem(RunConfig(target=f"http://127.0.0.1:{port}/v1/responses", mock_port=mock)) == (
        f"--target http://127.0.0.1:{port}/v1/responses: nothing accepts connections on 127.0.0.1:{port} (Connection "
        f"refused); start the IUT first, pointed at the mock, http://127.0.0.1:{mock}/v1")


def test_a_front_that_accepts_but_never_answers_http_is_named(listening: int) -> None:
    url = f"http://127.0.0.1:{listening}/v1/responses"
    assert problem(RunConfig(target=url, mock_port=free_port(), case_timeout=0.5)) == (
        f"the IUT accepts connections at {url} but sent no HTTP answer to a GET within 0.5 s: it is hung, or not an "
        "HTTP server there")


@pytest.mark.parametrize("flag", ["app", "client"])
def test_a_module_that_does_not_import_is_the_import_error(flag: str) -> None:
    spec = "callproof_no_such_module:thing"
    assert problem(RunConfig(app=spec) if flag == "app" else RunConfig(client=spec)) == (
        f"--{flag} 'callproof_no_such_module:thing': importing 'callproof_no_such_module' failed: "
        "ModuleNotFoundError: No module named 'callproof_no_such_module'")


def test_an_adapter_program_that_does_not_exist_is_named(tmp_path: Path) -> None:
    assert problem(RunConfig(client_cmd="callproof-no-such-adapter --flag")) == (
        "--client-cmd could not run 'callproof-no-such-adapter': no such program, or it is not executable; check the "
        "command and PATH")
    assert problem(RunConfig(client_cmd="adapter 'unclosed")) == (
        "--client-cmd \"adapter 'unclosed\" is not a valid command (No closing quotation)")


def test_a_preflight_that_passes_hands_over_the_started_harness(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", fakes.env()["PYTHONPATH"])
    harness, why = preflight(RunConfig(launch=fakes.launch()), keep=True)
    assert why is None and harness is not None
    try:
        starts = harness._iut.starts if harness._iut is not None else 0  # type: ignore[attr-defined]
        spec = next(s for s in harness.cases() if s.id == "one_call::expected")
        assert harness.judge(spec).outcome == "passed"
        assert harness._iut is not None and harness._iut.starts == starts == 1  # type: ignore[attr-defined]
    finally:
        harness.close()
