"""Launching the implementation under test: placeholders, readiness, stderr tails, restarts, process groups."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from callproof.harness.run._iut import IUTError, LaunchedIUT, TargetIUT, free_port
from callproof.harness.run._stop import stop_group

SERVER = f"{sys.executable} -m http.server {{port}} --bind 127.0.0.1"


def _launched(command: str, **kwargs: object) -> LaunchedIUT:
    return LaunchedIUT(command, upstream="http://127.0.0.1:9/v1", upstream_root="http://127.0.0.1:9",
                       start_timeout=kwargs.pop("start_timeout", 20.0), **kwargs)  # type: ignore[arg-type]


def test_start_waits_for_the_port_and_expands_placeholders() -> None:
    iut = _launched(SERVER, front_url="http://127.0.0.1:{port}/v1/responses?up={upstream}")
    try:
        iut.start()
        assert iut.alive() and iut.port > 0
        assert iut.front_url == f"http://127.0.0.1:{iut.port}/v1/responses?up=http://127.0.0.1:9/v1"
        assert httpx.get(f"http://127.0.0.1:{iut.port}/", timeout=5).status_code == 200
        iut.start()  # running: nothing happens
        assert iut.starts == 1
    finally:
        iut.stop()
    assert not iut.alive()


def test_ready_url_is_polled_until_2xx(tmp_path: Path) -> None:
    (tmp_path / "ready").write_text("ok", encoding="utf-8")
    iut = _launched(f"{SERVER} --directory {tmp_path}", ready_url="http://127.0.0.1:{port}/ready")
    try:
        iut.start()
        assert httpx.get(f"http://127.0.0.1:{iut.port}/ready", timeout=5).text == "ok"
    finally:
        iut.stop()


def test_an_iut_that_exits_at_start_names_its_exit_status_and_stderr() -> None:
    iut = _launched(f"{sys.executable} -c \"import sys; print('bad flag --upstream', file=sys.stderr); sys.exit(4)\"")
    with pytest.raises(IUTError) as info:
        iut.start()
    message = str(info.value)
    assert message.startswith("the IUT did not start: it exited before it was ready (exit status 4); its last stderr "
                              "line: 'bad flag --upstream'")
    assert message.endswith("stderr tail:\nbad flag --upstream")
    with pytest.raises(IUTError) as again:  # not retried for every case
        iut.start()
    assert str(again.value) == message and iut.starts == 1


def test_an_iut_that_never_listens_times_out() -> None:
    iut = _launched(f"{sys.executable} -c \"import time; time.sleep(60)\"", start_timeout=0.5)
    started = time.monotonic()
    with pytest.raises(IUTError, match=r"port \d+ never accepted a connection within the start timeout"):
        iut.start()
    assert time.monotonic() - started < 10 and not iut.alive()


def test_a_command_that_does_not_exist() -> None:
    with pytest.raises(IUTError, match="--launch could not run 'callproof-no-such-gateway'"):
        _launched("callproof-no-such-gateway --port {port}").start()


def test_a_bad_template_names_the_placeholders() -> None:
    with pytest.raises(IUTError) as info:
        _launched("gw --up {upstrem} --port {port}").start()
    assert str(info.value) == ("--launch 'gw --up {upstrem} --port {port}' has an unknown placeholder {upstrem}; the "
                               "placeholders are {upstream}, {upstream_root} and {port}; write {{ and }} for a "
                               "literal brace")


def test_doubled_braces_are_literal_braces_in_the_command(tmp_path: Path) -> None:
    script = tmp_path / "gw.py"
    script.write_text("import http.server, json, pathlib, socketserver, sys\n"
                      f"pathlib.Path({str(tmp_path / 'argv.json')!r}).write_text(json.dumps(sys.argv[1:]))\n"
                      "srv = socketserver.TCPServer(('127.0.0.1', int(sys.argv[-1])), "
                      "http.server.SimpleHTTPRequestHandler)\nsrv.serve_forever()\n", encoding="utf-8")
    iut = _launched(f"{sys.executable} {script} --extra '{{{{\"a\": 1}}}}' {{port}}")
    try:
        iut.start()
        assert json.loads((tmp_path / "argv.json").read_text(encoding="utf-8")) == [
            "--extra", '{"a": 1}', str(iut.port)]
    finally:
        iut.stop()


def test_a_ready_url_that_times_out_says_what_it_last_got(tmp_path: Path) -> None:
    iut = _launched(f"{SERVER} --directory {tmp_path}", ready_url="http://127.0.0.1:{port}/health",
                    start_timeout=2.0)
    with pytest.raises(IUTError) as info:
        iut.start()
    assert str(info.value).startswith(
        f"the IUT did not start: http://127.0.0.1:{iut.port}/health never answered 2xx within the start timeout (the "
        "last attempt got: HTTP 404)")
    refused = _launched(f"{sys.executable} -c \"import time; time.sleep(60)\"", start_timeout=0.5,
                        ready_url="http://127.0.0.1:{port}/health")
    with pytest.raises(IUTError, match=r"never answered 2xx within the start timeout \(the last attempt got: "
                       r"ConnectError: .*\)"):
        refused.start()


def test_a_dead_iut_is_restarted_on_the_next_start() -> None:
    iut = _launched(SERVER)
    try:
        iut.start()
        assert iut._process is not None
        iut._process.kill()
        iut._process.wait()
        assert not iut.alive()
        iut.start()
        assert iut.alive() and iut.starts == 2 and iut.port != 0
    finally:
        iut.stop()


def test_stop_kills_the_whole_process_group(tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    script = tmp_path / "gw.py"
    script.write_text(
        "import subprocess, sys, time, http.server, socketserver\n"
        f"child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'])\n"
        f"open({str(pidfile)!r}, 'w').write(str(child.pid))\n"
        "srv = socketserver.TCPServer(('127.0.0.1', int(sys.argv[1])), http.server.SimpleHTTPRequestHandler)\n"
        "srv.serve_forever()\n", encoding="utf-8")
    iut = _launched(f"{sys.executable} {script} {{port}}")
    iut.start()
    child = int(pidfile.read_text())
    iut.stop()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        pytest.fail("the gateway's child process survived stop()")


def test_target_that_nobody_serves() -> None:
    url = f"http://127.0.0.1:{free_port()}/v1/responses"
    with pytest.raises(IUTError, match=r"nothing accepts connections on 127\.0\.0\.1:"):
        TargetIUT(url).start()


def test_stopping_a_group_returns_once_its_leader_exits_not_after_the_grace_period() -> None:
    """An exited leader stays a zombie member of its group until reaped: stop_group reaps it (`reap`), so a process
    that obeys SIGTERM is stopped at once, not after the grace period (30 s here)."""
    process = subprocess.Popen(["sleep", "60"], start_new_session=True)
    start = time.monotonic()
    stop_group(process.pid, grace=30.0, reap=process.poll)
    assert time.monotonic() - start < 10.0
    assert process.poll() == -15  # ended by the SIGTERM, not the SIGKILL after the grace period


def test_an_app_is_imported_with_the_runs_upstream_dialect_in_its_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--app` with `--upstream-dialect anthropic`: the app reads CALLPROOF_UPSTREAM_DIALECT at import (the bundled
    gateway's asgi module does) and so talks to the mock in the dialect the run judges."""
    from callproof.harness.run._iut import AppIUT

    (tmp_path / "dialect_app.py").write_text(
        "import os\n"
        "SEEN = os.environ.get('CALLPROOF_UPSTREAM_DIALECT')\n"
        "async def app(scope, receive, send):\n"
        "    await send({'type': 'http.response.start', 'status': 200, 'headers': []})\n"
        "    await send({'type': 'http.response.body', 'body': SEEN.encode()})\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv("CALLPROOF_UPSTREAM_DIALECT", raising=False)
    monkeypatch.setattr(os, "environ", os.environ.copy())  # the IUT writes the variables it sets into os.environ

    async def mock_app(scope: object, receive: object, send: object) -> None:
        raise AssertionError("not called")

    iut = AppIUT("dialect_app:app", upstream="http://127.0.0.1:9/v1", upstream_root="http://127.0.0.1:9",
                 mock_app=mock_app, front_url="http://127.0.0.1:{port}/", upstream_dialect="anthropic")
    iut.start()
    try:
        assert httpx.get(iut.front_url, timeout=10).text == "anthropic"
    finally:
        iut.stop()
