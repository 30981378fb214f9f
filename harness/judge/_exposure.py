"""GW-FAULT-006 (docs/spec/contracts.md §7.8.2): an error a gateway answers exposes none of its internals: no stack
trace, no file path of its install, no text of a programming error (CWE-209, information exposure through an error
message). Real gateways answer a 400 or a 500 with a Node stack trace (`at Object.<anonymous>
(/home/app/node_modules/...)`) or a Python traceback in `error.message` or an `error.stack` field: the caller learns
the gateway's code layout and versions, and gets nothing it can act on.

What is searched: the strings of an HTTP error body (status 400 or more; the whole text when it is not JSON) and of
the error events of a stream (an `error` event, a chunk with an `error` member, `response.failed`'s
`response.error`); never the model's output. What counts (`exposures`):

- a stack frame: Node's `at f (/path/file.js:12:5)` / `at /path/file.js:12:5` / `at node:internal/...:95:5`,
  Python's `Traceback (most recent call last)` and `File "...", line N`, Java's `at a.b.C.m(C.java:12)`, Go's
  `goroutine N [running]`, Ruby's `file.rb:12:in`;
- an absolute file path: one under a file-system root (`/home/`, `/usr/`, `/opt/`, `/app/`, `/var/`, `/tmp/`, ...),
  one ending in a source file (`/x/y.js`, `.py`, `.go`, ...), a `node_modules/` or `site-packages/` path, a Windows
  `C:\\...` path; not a URL's path (`https://host/a/b.js`), an API path (`/v1/chat/completions`), a model name
  (`openai/gpt-4o`) or a relative doc path (`docs/errors.md`);
- the text of a programming error: `TypeError:`, `ReferenceError:`, `AttributeError:`, `KeyError:`, `NameError:`,
  `IndexError:`, `NullPointerException`, `panic: runtime error`, `Cannot read properties of undefined`, `'NoneType'
  object ...`. An exception naming what failed upstream (a timeout, a cut connection) is a diagnosis, not counted.

Each string exposing something is one violation naming its JSON path (and event), the kinds found and the first
match, cut short.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

from callproof.harness._types import JSONValue
from callproof.harness.catalogue import Evidence

from ._findings import Findings
from ._gateway import FrontAnswer

__all__ = ["check_error_exposure", "error_texts", "exposures"]

_ROOTS = "home|Users|root|usr|opt|var|srv|tmp|etc|mnt|private|app|nix|snap|workspace"
_SOURCE = r"js|mjs|cjs|ts|jsx|tsx|py|pyc|go|rb|java|kt|scala|php|rs|cs|jar|so|dll"
#: Not part of a URL or of another path or word: what may stand before an absolute path.
_START = r"(?<![\w.:/~@%+-])"

#: (kind, pattern), in the order they are named.
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("a stack frame", re.compile(
        r"\bat (?:async |new )?[^\s()]*(?: \[as [^\]]+\])? \((?:[^()\n]*\.[A-Za-z]+|node:[\w/]+):\d+:\d+\)"  # Node
        r"|\bat (?:async )?(?:file://)?(?:[\w@.+-]*/)+[\w@.+-]+\.[A-Za-z]+:\d+:\d+"  # Node, anonymous
        r"|\bat (?:async )?node:[\w/]+:\d+:\d+"  # Node internals
        r"|Traceback \(most recent call last\)|\bFile \"[^\"\n]+\", line \d+"  # Python
        r"|\bat [\w$]+(?:\.[\w$<>]+)+\([\w$]+\.(?:java|kt|scala):\d+\)"  # JVM
        r"|\bgoroutine \d+ \[\w+"  # Go
        r"|\.rb:\d+:in [`']")),  # Ruby
    ("an absolute file path", re.compile(
        rf"{_START}/(?:{_ROOTS})/[^\s\"'()<>,;]+"
        rf"|{_START}/(?:[\w@.+-]+/)+[\w@.+-]+\.(?:{_SOURCE})\b"
        r"|\b(?:node_modules|site-packages|dist-packages)/[^\s\"'()<>,;]+"
        r"|\b[A-Za-z]:\\(?:[^\\\s\"']+\\)+[^\\\s\"']*")),
    ("the text of a programming error", re.compile(
        r"\b(?:TypeError|ReferenceError|RangeError|AttributeError|KeyError|IndexError|NameError|UnboundLocalError"
        r"|ZeroDivisionError|RecursionError|AssertionError|NullPointerException)\b:"
        r"|\bjava\.lang\.\w+(?:Exception|Error)\b|\bpanic: runtime error\b"
        r"|Cannot read propert(?:y|ies) of (?:undefined|null)|\bundefined is not an? (?:object|function)\b"
        r"|'NoneType' object (?:has no attribute|is not)|object is not subscriptable")),
)
#: How much of the first match the evidence shows.
_SHOWN = 120


def exposures(text: str) -> list[tuple[str, str]]:
    """(kind, the line of its first match from the match on) of each kind of internals `text` exposes, in the order
    of `_PATTERNS`."""
    found = []
    for kind, pattern in _PATTERNS:
        match = pattern.search(text)
        if match is not None:
            end = text.find("\n", match.end())
            found.append((kind, text[match.start():end if end >= 0 else len(text)].rstrip()))
    return found


def _strings(value: JSONValue, path: str) -> Iterator[tuple[str, str]]:
    """(JSON path, string) of every string in `value` (a key's name is not searched)."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, child in value.items():
            yield from _strings(child, f"{path}.{key}")
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from _strings(child, f"{path}[{index}]")


def _event_error(data: JSONValue) -> tuple[JSONValue, str] | None:
    """The error part of a stream event's data and its path: an `error` event whole, a chunk's `error` member,
    `response.failed`'s `response.error`; None for any other event."""
    if not isinstance(data, dict):
        return None
    if data.get("type") == "error":
        return data, "$"
    if "error" in data and data["error"] is not None:
        return data["error"], "$.error"
    response = data.get("response")
    if data.get("type") == "response.failed" and isinstance(response, dict):
        return response.get("error"), "$.response.error"
    return None


def error_texts(answer: FrontAnswer) -> list[tuple[Evidence, str]]:
    """Where the front's answer says what went wrong, and the text there: each string of an HTTP error body (the
    body itself when it is not JSON), each string of a stream's error events."""
    status = answer.exchange.status or 0
    if status >= 400:
        body = answer.exchange.body
        if not body.strip():
            return []
        parsed = answer.exchange.json()
        if parsed is None:
            return [(Evidence(path="the front's body"), body.decode("utf-8", "replace"))]
        return [(Evidence(path=path), text) for path, text in _strings(parsed, "$")]
    texts: list[tuple[Evidence, str]] = []
    for index, event in enumerate(answer.events):
        try:
            data: JSONValue = json.loads(event.data)
        except ValueError:
            continue
        error = _event_error(data)
        if error is None or not isinstance(data, dict):
            continue
        named = data.get("type")
        kind = named if isinstance(named, str) else event.type
        texts += [(Evidence(event_index=index, event_type=kind, path=path), text)
                  for path, text in _strings(error[0], error[1])]
    return texts


def _cut(text: str) -> str:
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


def check_error_exposure(findings: Findings, answer: FrontAnswer) -> None:
    """GW-FAULT-006: no error text of the front's answer (`error_texts`) exposes a stack frame, an absolute file path
    or the text of a programming error. Not judged when the answer says no error."""
    texts = error_texts(answer)
    if not texts:
        return
    findings.check("GW-FAULT-006")
    for where, text in texts:
        found = exposures(text)
        if not found:
            continue
        kinds = ", ".join(kind for kind, _ in found[:-1]) + (" and " if len(found) > 1 else "") + found[-1][0]
        evidence = Evidence(event_index=where.event_index, event_type=where.event_type, path=where.path,
                            expected="no stack trace, file path or exception text", actual=_cut(found[0][1]))
        findings.fail("GW-FAULT-006", f"the front's error exposes {kinds} at {evidence.describe()} "
                      f"({_cut(found[0][1])!r}): internals of the gateway, of no use to its caller (CWE-209); log "
                      "them, and answer a message of your own", evidence)
