"""The value types of the run options (`_options.OPTIONS`): argparse `type` callables that read and check one value
(whole numbers, a port, a shard, a header), and the redaction of secret header values in a shown command line."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from callproof.harness.report_model import ReportError, read_report

__all__ = ["header_pair", "non_negative_int", "port_number", "positive_float", "positive_int", "redact_argv",
           "shard_durations", "shard_spec", "shown_header"]


def _whole_number(text: str, minimum: int, below: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < minimum:
        raise argparse.ArgumentTypeError(f"{below}, got {value}")
    return value


def positive_int(text: str) -> int:
    """A whole number of at least 1 (an argparse `type`)."""
    return _whole_number(text, 1, "must be at least 1")


def non_negative_int(text: str) -> int:
    """A whole number of at least 0 (an argparse `type`)."""
    return _whole_number(text, 0, "must be 0 or more")


def positive_float(text: str) -> float:
    """A finite number of seconds above 0 (an argparse `type`)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text}")
    return value


def port_number(text: str) -> int:
    """A TCP port, 0 to 65535, 0 asking for a free one (an argparse `type`)."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number (0 to 65535; 0 picks a free port)")
    return value


_SHARD = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


def shard_spec(text: str) -> str:
    """`I/N`, shard I of N with 1 <= I <= N (an argparse `type`), as `I/N`."""
    found = _SHARD.match(text)
    if found is None:
        raise argparse.ArgumentTypeError(f"expected I/N, shard I of N shards (e.g. 2/3), got {text!r}")
    index, count = int(found.group(1)), int(found.group(2))
    if not 1 <= index <= count:
        raise argparse.ArgumentTypeError(f"shard {index}/{count}: I must be between 1 and N (1/{max(count, 1)} to "
                                         f"{max(count, 1)}/{max(count, 1)})")
    return f"{index}/{count}"


def shard_durations(text: str) -> Path:
    """A report to balance shards by (an argparse `type`): read and checked now, so a bad file is a usage error."""
    try:
        read_report(Path(text))
    except ReportError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return Path(text)


_TOKEN = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
#: Header names whose values never appear in clear in reports or repro commands.
_SECRET = re.compile(r"authorization|key|token|secret|password|cookie", re.IGNORECASE)


def header_pair(text: str) -> str:
    """A `NAME:VALUE` header (an argparse `type`), as `NAME:VALUE` with the space after the colon dropped."""
    name, colon, value = text.partition(":")
    if not colon or not _TOKEN.match(name.strip()):
        raise argparse.ArgumentTypeError(f"expected NAME:VALUE (e.g. 'Authorization: Bearer KEY'), got "
                                         f"{shown_header(text) if colon else repr(text)}")
    return f"{name.strip()}:{value.strip()}"


def shown_header(text: str) -> str:
    """A `NAME:VALUE` header as reports and repro commands show it: `NAME:***` when the name looks secret."""
    name, _, _ = text.partition(":")
    return f"{name}:***" if _SECRET.search(name) else text


def redact_argv(argv: list[str]) -> list[str]:
    """A command line with the values of secret-looking `--header` / `--callproof-header` options masked."""
    out: list[str] = []
    after_flag = False
    for arg in argv:
        flag, eq, value = arg.partition("=")
        if after_flag and not arg.startswith("-"):
            out.append(shown_header(arg))
            continue
        after_flag = arg in ("--header", "--callproof-header")
        out.append(f"{flag}={shown_header(value)}" if eq and flag in ("--header", "--callproof-header") else arg)
    return out
