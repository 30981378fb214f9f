"""Test fakes: deliberately simple gateways and clients under test, correct and broken (README.md).

Each fake is a module of this package, run as `python -m tests.fakes.<module>` with the repository root as the
working directory; from another directory, put the root on PYTHONPATH (`env()`). `command()` and `launch()` spell
those command lines for the harness's `--client-cmd` and `--launch`.
"""

from __future__ import annotations

import functools
import os
import ssl
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

__all__ = ["HANGS_ON_POST", "ROOT", "Fake", "command", "env", "launch", "run_env", "tls"]

#: The repository root: `-m tests.fakes.<module>` resolves from here.
ROOT = Path(__file__).resolve().parents[2]

Fake = Literal["clients", "gateway_mux", "gateways", "hollow", "lone_surrogate", "passthrough", "stubborn",
               "ws_clients"]


@functools.cache
def tls() -> ssl.SSLContext:
    """One TLS context a process for the fakes' and tests' httpx clients (`verify=tls()`): httpx builds a new one for
    each client it makes, 35 ms of CPU loading the CA bundle, and the fakes make one a request."""
    return ssl.create_default_context()


def command(fake: Fake, defect: str | None = None) -> str:
    """`<this python> -m tests.fakes.<fake> [--defect DEFECT]`."""
    flag = f" --defect {defect}" if defect else ""
    return f"{sys.executable} -m tests.fakes.{fake}{flag}"


def launch(fake: Literal["gateways", "hollow", "lone_surrogate", "passthrough", "stubborn"] = "gateways",
           defect: str | None = None) -> str:
    """A `--launch` command: the fake gateway (one `defect`, or none) in front of the harness's mock upstream."""
    return f"{command(fake, defect)} --upstream {{upstream}} --port {{port}}"


def env(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """`base` (default: os.environ) with the repository root first on PYTHONPATH, so that the commands above
    work from any working directory."""
    environ = dict(os.environ if base is None else base)
    paths = [str(ROOT), *(p for p in environ.get("PYTHONPATH", "").split(os.pathsep) if p)]
    environ["PYTHONPATH"] = os.pathsep.join(paths)
    return environ


#: The pytest plugins the dev venv installs beside callproof (for its own tests and the `interop` extra's
#: libraries), which a `callproof run` session, loading every installed plugin, would load for nothing.
UNUSED_PLUGINS = ("anyio", "hypothesispytest", "langsmith_plugin", "respx")


def run_env() -> dict[str, str]:
    """The environment of a `callproof` command a test runs as a user would: `env()` without this test run's own
    PYTEST_* variables, and without the plugins of UNUSED_PLUGINS (0.7 s of CPU per start, langsmith's the most)."""
    environ = env({k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")})
    environ["PYTEST_ADDOPTS"] = " ".join(f"-p no:{name}" for name in UNUSED_PLUGINS)
    return environ


#: The source of a gateway (`python hang.py PORT`) that answers the preflight's GET but never a case's POST.
HANGS_ON_POST = (  # answers the preflight's GET, never a case's POST
    "import sys, time\nfrom http.server import BaseHTTPRequestHandler, ThreadingHTTPServer\n"
    "class Handler(BaseHTTPRequestHandler):\n"
    "    def do_GET(self):\n        self.send_response(405)\n        self.send_header('content-length', '0')\n"
    "        self.end_headers()\n"
    "    def do_POST(self):\n        time.sleep(3600)\n"
    "    def log_message(self, *args):\n        pass\n"
    "ThreadingHTTPServer.daemon_threads = True\n"
    "ThreadingHTTPServer(('127.0.0.1', int(sys.argv[1])), Handler).serve_forever()\n")
