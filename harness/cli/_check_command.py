"""`callproof check`: captured streams or bodies against the rule catalogue."""

from __future__ import annotations

import argparse
import json
import sys
from typing import BinaryIO, cast

from callproof.harness._errors import InputError
from callproof.harness._version import __version__
from callproof.harness.catalogue import FRONTS, PROFILES, Profile
from callproof.harness.check import check_capture, format_report
from callproof.harness.transports import TransportChoices

from ._exit import ExitCode

__all__ = ["add_arguments", "run"]


def add_arguments(check: argparse.ArgumentParser) -> None:
    check.description = ("Check raw SSE text as captured off the wire (or a non-stream JSON body, or a Responses "
                         "WebSocket transcript of JSON lines), rule by rule.")
    check.add_argument("files", nargs="+", metavar="FILE", help="capture file, or - for standard input")
    check.add_argument("--front", choices=("auto", *FRONTS), default="auto",
                       help="the dialect of the capture (default: detected from its first event)")
    check.add_argument("--transport", choices=TransportChoices(capture=True), default="auto",
                       help="sse: SSE text or a JSON body; websocket: a Responses WebSocket transcript, one JSON "
                            "message a line (default: websocket for a .jsonl/.ndjson file or JSON-lines content)")
    check.add_argument("--profile", choices=PROFILES, default="openai", help="rules and schema variant")
    check.add_argument("--format", choices=("text", "json"), default="text", help="output format")


def _open(path: str) -> BinaryIO:
    if path == "-":
        return sys.stdin.buffer
    try:
        return open(path, "rb")
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None


def run(args: argparse.Namespace) -> int:
    """Check every file; one that cannot be read or checked is reported (one line, or an `error` entry in JSON) and
    the others are still checked. Exit 2 when any input could not be checked, else 1 when a MUST rule failed."""
    failed = unreadable = False
    documents: list[dict[str, object]] = []
    for path in args.files:
        name = "<stdin>" if path == "-" else path
        try:
            stream = _open(path)
            try:
                report = check_capture(stream, name, front=args.front, profile=cast(Profile, args.profile),
                                       transport=args.transport)
            finally:
                if stream is not sys.stdin.buffer:
                    stream.close()
        except InputError as exc:
            unreadable = True
            print(f"callproof check: {exc}", file=sys.stderr)
            documents.append({"file": name, "error": str(exc)})
            continue
        failed = failed or not report.conformant
        if args.format == "json":
            documents.append({"file": name, **report.to_json()})
        else:
            print(format_report(report, name))
    if args.format == "json":
        json.dump({"callproof_version": __version__, "checks": documents}, sys.stdout, indent=2)
        sys.stdout.write("\n")
    return ExitCode.USAGE if unreadable else ExitCode.FAILED if failed else ExitCode.OK
