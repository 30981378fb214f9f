"""`python -m interop.gateways` (make interop-gateways), tested with stand-ins for real gateways: the reference
gateway (examples/gateway/) and one broken fake of tests/fakes/gateways.py, described in a data file of the test's
own, with nothing to install. Real uvicorn servers on 127.0.0.1, a one-case selection (`-k`)."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from interop import (
    BEGIN,
    DATA,
    END,
    OFFLINE_ENV,
    Gateway,
    InstallError,
    Mode,
    Paths,
    SpecError,
    command,
    ensure,
    fill,
    load,
    prepare,
    read_baseline,
)

ROOT = Path(__file__).resolve().parents[2]
CASE = "one_call::translation"


def _data(tmp_path: Path, gateways: list[dict[str, object]]) -> Path:
    path = tmp_path / "gateways.json"
    path.write_text(json.dumps({"gateways": gateways}), encoding="utf-8")
    return path


def _gateway(name: str, launch: str, **extra: object) -> dict[str, object]:
    return {"name": name, "title": f"{name} gateway", "version": version("callproof"), "distribution": "callproof",
            "pip": [], "start_timeout": 30, "case_timeout": 20,
            "modes": [{"front": "responses", "upstream": "chat", "launch": launch}], **extra}


REFERENCE = "{root}/.venv/bin/python -m examples.gateway --upstream {upstream} --port {port}"
BROKEN = ("{root}/.venv/bin/python -m tests.fakes.gateways --defect drops_tool_schemas --upstream {upstream} "
          "--port {port}")


def _run(tmp_path: Path, data: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "interop.gateways", "--data", str(data), "--out", str(tmp_path / "out"),
         "--baselines", str(tmp_path / "baselines"), "--docs", str(tmp_path / "interop.md"), "-k", CASE, *args],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)


def test_bundled_data_file_is_valid_and_every_mode_has_a_baseline() -> None:
    gateways = load(DATA)
    assert gateways, "interop/gateways.json lists no gateway"
    for gateway in gateways:
        assert gateway.pip and all(gateway.version in spec for spec in gateway.pip if gateway.distribution in spec), (
            f"{gateway.name}: pin {gateway.version} in its pip requirement")
        for mode in gateway.modes:
            baseline = ROOT / "examples" / "baselines" / "gateways" / f"{gateway.name}-{mode.id}.txt"
            assert baseline.exists(), f"{gateway.name} {mode.id}: no baseline {baseline.relative_to(ROOT)}"


def test_a_data_file_off_its_schema_names_the_path(tmp_path: Path) -> None:
    bad = _gateway("x", "run {port}")
    bad["modes"] = [{"front": "responses", "upstream": "gemini", "launch": "run"}]
    with pytest.raises(SpecError, match=r"at gateways/0/modes/0/upstream: 'gemini' is not one of"):
        load(_data(tmp_path, [bad]))
    with pytest.raises(SpecError, match="given twice"):
        load(_data(tmp_path, [_gateway("x", "a"), _gateway("x", "b")]))


def test_only_the_placeholders_are_filled_other_braces_stay() -> None:
    text = '{"api_base": "{upstream}", "port": {port}, "keep": "{model}", "json": {"a": 1}}'
    assert fill(text, {"upstream": "http://h/v1", "port": "9"}) == (
        '{"api_base": "http://h/v1", "port": 9, "keep": "{model}", "json": {"a": 1}}')


def test_the_launch_step_renders_files_env_and_command(tmp_path: Path) -> None:
    mode = Mode(front="chat", upstream="anthropic", launch="{venv}/bin/gw --config '{config}' --port {port}",
                env=(("GW_UPSTREAM", "{upstream_root}"),), files=(("extra.txt", "{files}"),))
    gateway = Gateway(name="gw", title="gw", version="1", distribution="gw", pip=(), modes=(mode,),
                      env=(("GW_TELEMETRY", "off"), ("GW_UPSTREAM", "overridden")),
                      files=(("config.yaml", "base: {upstream}\nbraces: {x}\n"),))
    launch = prepare(gateway, mode, upstream="http://127.0.0.1:5/v1", upstream_root="http://127.0.0.1:5", port="7",
                     venv=tmp_path / "venv", root=ROOT, work=tmp_path / "work")
    assert launch.files == tmp_path / "work" / "gw-chat-anthropic-7"
    assert (launch.files / "config.yaml").read_text() == "base: http://127.0.0.1:5/v1\nbraces: {x}\n"
    assert (launch.files / "extra.txt").read_text() == str(launch.files)
    assert launch.argv == (f"{tmp_path}/venv/bin/gw", "--config", str(launch.files / "config.yaml"), "--port", "7")
    assert launch.env["GW_UPSTREAM"] == "http://127.0.0.1:5" and launch.env["GW_TELEMETRY"] == "off"
    assert all(launch.env[key] == value for key, value in OFFLINE_ENV.items())


def test_the_callproof_command_of_a_mode(tmp_path: Path) -> None:
    mode = Mode(front="responses", upstream="responses", launch="gw", front_transport="websocket",
                args=("--front-url", "ws://127.0.0.1:{port}/v1/responses", "--header", "X-Venv: {venv}"))
    gateway = Gateway(name="gw", title="gw", version="1", distribution="gw", pip=(), modes=(mode,))
    paths = Paths(root=ROOT, data=tmp_path / "g.json", out=tmp_path / "out", baselines=tmp_path / "b",
                  callproof=Path("callproof"))
    argv = command(gateway, mode, paths, workers=2, keyword="one_call")
    assert mode.id == "responses-responses-ws"
    assert argv[:6] == ["callproof", "run", "--front", "responses", "--upstream-dialect", "responses"]
    launch = argv[argv.index("--launch") + 1]
    assert launch.endswith("gw responses-responses-ws --upstream {upstream} --upstream-root {upstream_root} "
                           "--port {port}")
    assert "--baseline" not in argv
    assert argv[-4:] == ["--front-url", "ws://127.0.0.1:{port}/v1/responses",
                         "--header", f"X-Venv: {tmp_path}/out/venvs/gw"]
    assert argv[argv.index("--front-transport"):][:2] == ["--front-transport", "websocket"]
    assert argv[argv.index("-k"):][:2] == ["-k", "one_call"] and argv[argv.index("-n"):][:2] == ["-n", "2"]
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "gw-responses-responses-ws.txt").write_text("")
    assert "--baseline" in command(gateway, mode, paths)


def test_a_baseline_entry_keeps_the_comment_above_it(tmp_path: Path) -> None:
    path = tmp_path / "b.txt"
    path.write_text("# header\n\n# Drops the schemas.\n# Second line.\none_call::translation GW-REQ-002\n"
                    "x::faults\n\n# Other.\ny::schema RSP-SCHEMA-001 RSP-SCHEMA-002  # trailing\n")
    entries = read_baseline(path)
    assert [(e.case, e.rules, e.cause) for e in entries] == [
        ("one_call::translation", ("GW-REQ-002",), "Drops the schemas. Second line."),
        ("x::faults", (), "Drops the schemas. Second line."),
        ("y::schema", ("RSP-SCHEMA-001", "RSP-SCHEMA-002"), "Other.")]


def test_install_is_skipped_when_stamped_and_the_pinned_version_is_checked(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").symlink_to(sys.executable)
    pins = ["callproof==0.0.0-not-installed"]
    (venv / ".callproof-installed").write_text(json.dumps(pins))
    gateway = Gateway(name="gw", title="gw", version=version("callproof"), distribution="callproof",
                      pip=tuple(pins), modes=())
    assert ensure(gateway, venv) == version("callproof")  # stamped: pip is not run (the pin cannot be installed)
    wrong = Gateway(name="gw", title="gw", version="0.0.1", distribution="callproof", pip=tuple(pins), modes=())
    with pytest.raises(InstallError, match=r"gw: callproof .* is installed in .*, the data file pins 0.0.1"):
        ensure(wrong, venv)


def test_a_failed_install_is_one_line_naming_the_gateway(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").symlink_to(sys.executable)
    gateway = Gateway(name="gw", title="gw", version="1", distribution="gw", pip=(str(tmp_path / "missing.whl"),),
                      modes=())
    with pytest.raises(InstallError, match=r"^gw: install of .*missing\.whl into .* failed \(exit 1\): ") as caught:
        ensure(gateway, venv)
    assert "\n" not in str(caught.value)


def test_an_unknown_gateway_is_a_usage_error(tmp_path: Path) -> None:
    done = _run(tmp_path, _data(tmp_path, [_gateway("reference", REFERENCE)]), "--only", "nope", "--no-docs")
    assert done.returncode == 2
    assert "--only nope: no such gateway; there are reference" in done.stderr


@pytest.mark.long
def test_runs_every_mode_writes_reports_and_docs_and_fails_outside_the_baseline(tmp_path: Path) -> None:
    data = _data(tmp_path, [
        _gateway("reference", REFERENCE, unsupported=[{"mode": "anthropic-chat", "why": "no Messages front"}]),
        _gateway("broken", BROKEN)])
    docs = tmp_path / "interop.md"
    docs.write_text(f"# Title\n\nintro\n\n{BEGIN}\nold rows\n{END}\n\nafter\n")
    done = _run(tmp_path, data)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "interop-gateways: reference " + version("callproof") + " (nothing to install)" in done.stdout
    lines = [line for line in done.stdout.splitlines() if "responses-chat:" in line]
    assert len(lines) == 2 and "reference" in lines[0] and ": ok; 1 cases: 1 passed" in lines[0], lines
    assert "broken" in lines[1] and "FAILED outside its baseline; 1 cases: 0 passed, 1 failed" in lines[1], lines
    assert "failed outside the baselines or could not run: broken responses-chat" in done.stdout
    for name in ("reference", "broken"):
        report = json.loads((tmp_path / "out" / f"{name}-responses-chat.json").read_text())
        assert [case["id"] for case in report["cases"]] == [CASE]
    text = docs.read_text()
    assert text.startswith("# Title\n\nintro\n\n") and text.endswith(f"{END}\n\nafter\n") and "old rows" not in text
    assert "| reference gateway | " + version("callproof") + " | responses → chat | 1 | 1 | 0 | 0 | none |" in text
    assert "| broken gateway | " + version("callproof") + " | responses → chat | 1 | 0 | 1 | 0 | GW-REQ-002 |" in text
    assert "| reference gateway | " + version("callproof") + " | anthropic → chat | - | - | - | - | not served: " \
        "no Messages front | |" in text
    assert "| broken gateway | GW-REQ-002 | MUST | responses-chat | 1 | not in the baseline" in text

    (tmp_path / "baselines").mkdir()
    (tmp_path / "baselines" / "broken-responses-chat.txt").write_text(
        "# The broken fake.\n\n# Drops the tools' parameter schemas.\none_call::translation GW-REQ-002\n")
    again = _run(tmp_path, data, "--only", "broken", "--mode", "responses-chat", "--jobs", "2")
    assert again.returncode == 0, again.stdout + again.stderr
    assert "broken" in again.stdout and "reference" not in again.stdout.replace(str(tmp_path), "")
    assert "1 modes, every one within its baseline" in again.stdout
    text = docs.read_text()
    assert "| broken gateway | GW-REQ-002 | MUST | responses-chat | 1 | Drops the tools' parameter schemas. |" in text
    assert "| reference gateway | " + version("callproof") + " | responses → chat | 1 | 1 | 0 | 0 | none |" in text

    docs.write_text(f"{BEGIN}\n{END}\n")
    only = _run(tmp_path, data, "--docs-only")
    assert only.returncode == 0 and "rewritten from the reports" in only.stdout, only.stdout + only.stderr
    assert "| broken gateway | GW-REQ-002 | MUST | responses-chat | 1 | Drops the tools' parameter schemas. |" in (
        docs.read_text())
