"""`callproof record`: the recording proxy in the foreground (mock_server/_record.py)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from urllib.parse import urlsplit

from callproof.harness._options import port_number

from ._exit import ExitCode
from ._mock_command import server_module
from ._outputs import refuse_outputs

__all__ = ["add_arguments", "run"]


def add_arguments(record: argparse.ArgumentParser) -> None:
    record.description = (
        "Forward every request to --upstream (same path, headers but hop-by-hop ones), stream the answer back "
        "unchanged as it arrives, and write each exchange of a dialect endpoint to --out as a scenario file with a "
        "`match` on its request, until SIGINT or SIGTERM; prints `callproof record listening on "
        "http://HOST:PORT/v1, ...`."
    )
    record.add_argument("--upstream", required=True, metavar="URL",
                        help="where to forward, e.g. https://api.openai.com (the caller's path is appended)")
    record.add_argument("--out", required=True, type=Path, metavar="DIR", help="folder for the scenario files")
    record.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    record.add_argument("--port", type=port_number, default=0, help="port to bind (default 0: a free port)")


def run(args: argparse.Namespace) -> int:
    parts = urlsplit(args.upstream)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        print(f"callproof record: --upstream {args.upstream!r} is not an http(s) URL", file=sys.stderr)
        return ExitCode.USAGE
    refused = refuse_outputs("record", folders=[("--out", args.out)])
    if refused is not None:
        return refused
    try:
        count = server_module().record_forever(upstream=args.upstream, out=args.out, host=args.host, port=args.port)
    except OSError as exc:
        print(f"callproof record: cannot serve on {args.host}:{args.port}: {exc.strerror or exc}; "
              "pick another --port (0 chooses a free one)", file=sys.stderr)
        return ExitCode.USAGE
    print(f"callproof record: {count} exchange(s) recorded in {args.out}", file=sys.stderr)
    return ExitCode.OK
