"""`callproof mock`: the scripted mock upstream in the foreground."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from types import ModuleType

from callproof.harness._options import port_number
from callproof.harness.scenario import ScenarioError

from ._exit import ExitCode
from ._outputs import refuse_outputs
from ._scenarios_command import add_corpus_options, corpus

__all__ = ["add_arguments", "run"]


def _speed(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number (a factor, like 2 or 0.5), got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"speed must be a positive number, got {text}")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"the connection limit must be a positive number of seconds, got {text}")
    return value


def add_arguments(mock: argparse.ArgumentParser) -> None:
    mock.description = ("Serve the scenarios in the Responses, Chat Completions and Anthropic dialects until SIGINT "
                        "or SIGTERM; prints `callproof mock listening on http://HOST:PORT/v1`.")
    mock.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    mock.add_argument("--port", type=port_number, default=0, help="port to bind (default 0: a free port)")
    add_corpus_options(mock)
    mock.add_argument("--strict", action="store_true",
                      help="answer 404 (listing the nearest ids) when no scenario matches, instead of `default`")
    mock.add_argument("--seed", type=int, default=0, help="seed of fault probabilities and jitter (default 0)")
    mock.add_argument("--journal", type=Path, metavar="FILE.jsonl", help="append the journal to this file")
    mock.add_argument("--speed", type=_speed, default=1.0, help="divide every scripted delay by FACTOR (default 1)")
    mock.add_argument("--virtual-clock", action="store_true",
                      help="play every scripted delay at once, on a virtual clock (the journal keeps the scripted "
                           "times): for tests where timing is not under test")
    mock.add_argument("--ws-connection-limit", type=_seconds, default=3600.0, metavar="SECONDS",
                      help="close a Responses WebSocket connection after SECONDS with the error event "
                           "websocket_connection_limit_reached (default 3600)")
    control = mock.add_mutually_exclusive_group()
    control.add_argument("--control-token", metavar="TOKEN",
                         help="require `Authorization: Bearer TOKEN` on the control API (journal, scenarios, reset); "
                              "needed with a --host beyond loopback")
    control.add_argument("--no-control", dest="control", action="store_false",
                         help="serve no control API but /_callproof/health")


def server_module() -> ModuleType:
    """callproof.mock_server, imported on first use (by `mock` and `record`)."""
    # start-up guard: starlette, uvicorn and httpx load only for the commands that serve
    import callproof.mock_server

    return callproof.mock_server


def run(args: argparse.Namespace) -> int:
    refused = refuse_outputs("mock", [("--journal", args.journal)])  # before the bind, else it looks like a port's
    if refused is not None:
        return refused
    server = server_module()
    try:
        scenarios = corpus(args.scenarios, args.bundled)
        server.serve_forever(host=args.host, port=args.port, scenarios=scenarios, strict=args.strict,
                             seed=args.seed, journal_path=args.journal, speed=args.speed, control=args.control,
                             control_token=args.control_token, virtual_clock=args.virtual_clock,
                             ws_connection_limit=args.ws_connection_limit)
    except (ScenarioError, server.ExposedControlError) as exc:
        print(f"callproof mock: {exc}", file=sys.stderr)
        return ExitCode.USAGE
    except OSError as exc:
        print(f"callproof mock: cannot serve on {args.host}:{args.port}: {exc.strerror or exc}; "
              "pick another --port (0 chooses a free one)", file=sys.stderr)
        return ExitCode.USAGE
    return ExitCode.OK
