"""A gateway that is hard to stop: a parent that ignores SIGTERM, running the reference gateway
(`tests.fakes.gateways`) and a helper that ignores SIGTERM too, all in one process group. SIGTERM ends the
gateway only; SIGKILL to the whole group ends them all. The test of a run interrupted by SIGTERM
(tests/harness/cli/test_ends.py) checks that none of them survives.

    python -m tests.fakes.stubborn --upstream http://127.0.0.1:PORT/v1 --port N [--pid-file FILE]

`--pid-file` receives the pids of the parent, the helper and the gateway, one a line. The other flags go to the
gateway.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

_HELPER = "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\ntime.sleep(3600)\n"


def main(argv: Sequence[str] | None = None) -> int:
    command = argparse.ArgumentParser(add_help=False)
    command.add_argument("--pid-file", type=Path)
    own, rest = command.parse_known_args(argv)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    helper = subprocess.Popen([sys.executable, "-c", _HELPER])
    gateway = subprocess.Popen([sys.executable, "-m", "tests.fakes.gateways", *rest])
    if own.pid_file is not None:
        own.pid_file.write_text(f"{os.getpid()}\n{helper.pid}\n{gateway.pid}\n", encoding="utf-8")
    gateway.wait()
    helper.wait()  # SIGTERM does not end it: the parent lives on until SIGKILL
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
