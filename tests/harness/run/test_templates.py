"""The run's templates (`--launch`, `--front-url`, `--ready-url`): one parser finds their placeholders, checks them
and renders them; `{{` and `}}` are literal braces, and a `--launch` command is split after rendering."""

from __future__ import annotations

from pathlib import Path

import pytest

from callproof.harness.run import ConfigError, RunConfig
from callproof.harness.run._templates import TemplateError, launch_argv, placeholders, render, template_problem

VALID = "the placeholders are {upstream}, {upstream_root} and {port}; write {{ and }} for a literal brace"
VALUES: dict[str, str | int] = {"upstream": "http://127.0.0.1:7/v1", "upstream_root": "http://127.0.0.1:7", "port": 8}


def test_placeholders_are_parsed_not_searched() -> None:
    assert placeholders("gw --up {upstream} --port {port}") == {"upstream", "port"}
    assert placeholders("gw --json '{{\"port\": 1}}' --port {{port}}") == set()


@pytest.mark.parametrize(("template", "why"), [
    ("gw {upstrem}", "has an unknown placeholder {upstrem}"),
    ("gw {}", "has an unknown placeholder {}"),
    ("gw {0}", "has an unknown placeholder {0}"),
    ("gw {port.real}", "has an unknown placeholder {port.real}"),
    ("gw {port:d}", "write {port} with nothing after the name"),
    ("gw {port!r}", "write {port} with nothing after the name"),
    ("gw {", "is not a valid template (Single '{' encountered in format string)"),
    ("gw }", "is not a valid template (Single '}' encountered in format string)"),
])
def test_a_bad_template_names_itself_and_the_valid_placeholders(template: str, why: str) -> None:
    with pytest.raises(TemplateError) as info:
        placeholders(template, "--launch")
    assert str(info.value) in (f"--launch {template!r} {why}; {VALID}", f"--launch {template!r}: {why}; {VALID}")


def test_doubled_braces_render_as_literal_braces_and_split_as_the_shell_would() -> None:
    assert render("http://127.0.0.1:{port}/v1?q={{x}}", "--front-url", **VALUES) == "http://127.0.0.1:8/v1?q={x}"
    assert launch_argv("gw --extra '{{\"a\":1}}' --up {upstream} --port {port}", **VALUES) == [
        "gw", "--extra", '{"a":1}', "--up", "http://127.0.0.1:7/v1", "--port", "8"]


def test_a_command_that_does_not_split_is_named() -> None:
    with pytest.raises(TemplateError) as info:
        launch_argv("gw --name 'it {port}", **VALUES)
    assert str(info.value) == ("--launch \"gw --name 'it {port}\" is not a valid command (No closing quotation); "
                               "close the quote, or quote a literal quote character")
    with pytest.raises(TemplateError, match="--launch is empty"):
        launch_argv("  ", **VALUES)


def test_every_template_of_a_run_is_checked_before_anything_starts() -> None:
    assert template_problem("gw {port}", "http://127.0.0.1:{port}/v1/responses", "http://127.0.0.1:{port}/ok") is None
    assert template_problem("gw {port}", "http://127.0.0.1:{prot}/v1/responses", None) == (
        f"--front-url 'http://127.0.0.1:{{prot}}/v1/responses' has an unknown placeholder {{prot}}; {VALID}")
    assert template_problem(None, None, "http://127.0.0.1:{port}/{health") == (
        "--ready-url 'http://127.0.0.1:{port}/{health' is not a valid template (expected '}' before end of string); "
        f"{VALID}")


def test_the_configuration_refuses_a_bad_template_and_reads_escaped_braces_as_text() -> None:
    with pytest.raises(ConfigError, match=r"^--ready-url 'http://h:\{prot\}/ok' has an unknown placeholder \{prot\}"):
        RunConfig.from_options({"launch": "gw {port}", "ready_url": "http://h:{prot}/ok"}.get, Path("."))
    problem = RunConfig(launch="gw --port {{port}}").problem()
    assert problem is not None and problem.startswith("--launch has no {port} placeholder")
