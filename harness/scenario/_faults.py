"""The one table of fault kinds (`FAULTS`): each kind's parameters, typed and with the defaults the mock plays them
with, and what the harness reads from the kind: whether it cuts the stream short (GW-FAULT-003), whether it only
frames the same events another way the SSE standard allows (CLI-010), whether it applies to a non-stream body, and
whether it answers with an HTTP error instead of a stream (GW-FAULT-001/002, a leg's derived expectation, the rule
groups planned for a scenario). The judge, the client rules, sequences and the run plan read the table through the
helpers below; the mock plays each kind by a function of its own, bound to this table (mock_server/_inject.py).

Adding a fault kind (scenarios/README.md#adding-a-fault-kind): a row here (and its name in `FaultKind`), the
`kind` enum and a parameter block in schemas/scenario.schema.json#/$defs/fault, and an injector in
mock_server/_inject.py. tests/harness/scenario/test_faults.py and tests/mock_server/test_inject.py name what is
missing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from ._scenario import Fault

__all__ = [
    "FAULTS",
    "FRAMING_STYLES",
    "FaultKind",
    "FaultParam",
    "FaultSpec",
    "ParamValue",
    "cut_kinds",
    "fault_param",
    "framing_variant",
    "http_error_fault",
    "is_framing",
    "raw_http_error",
]

FaultKind = Literal[
    "http_error", "stream_error", "disconnect", "truncate", "malformed", "stall", "keepalive", "fragment", "crlf",
    "framing", "slow_first_byte",
]
#: The `framing` fault's styles (docs/spec/sse.md §5.1, §5.2), each with what it puts on the wire: the mock reframes
#: a stream by them (mock_server/_framing.py), CLI-010 names them in its messages.
FRAMING_STYLES: Mapping[str, str] = {
    "no_space": "`data:`/`event:` without the space after the colon",
    "multiline_data": "each event's data split over several `data:` lines (joined with LF)",
    "cr_only": "lines ended by a lone CR",
    "comments_and_fields": "comment lines and `id:`/`retry:` fields in every event block",
}
#: A parameter's value once read: the type its `FaultParam` declares (None: not given and no default).
ParamValue = int | float | str | None

@dataclass(frozen=True, slots=True)
class FaultParam:
    """One parameter of a fault kind, as the mock reads it: `type` converts the scenario's value; `default` is used
    when the scenario gives none (None: no default, or one computed when played, such as the middle of the stream);
    `required` and `per_dialect` (the value may be an object keyed by dialect) say what the schema says."""

    name: str
    type: type[int] | type[float] | type[str]
    default: int | float | str | None = None
    required: bool = False
    per_dialect: bool = False


@dataclass(frozen=True, slots=True)
class FaultSpec:
    """One fault kind: its parameters and what the harness reads from it. `describe` names a framing variant in
    CLI-010's messages from the fault's parameters (framing kinds only)."""

    kind: FaultKind
    summary: str
    params: tuple[FaultParam, ...] = ()
    #: The stream ends short of its normal ending: a gateway must not end its own normally (GW-FAULT-003).
    cuts_stream: bool = False
    #: Valid SSE carrying the same events, framed another way: a client must report the same result (CLI-010).
    framing: bool = False
    #: It changes a non-stream (JSON body) answer too, not only a stream.
    in_body: bool = False
    #: The answer is an HTTP error (`status`, `retry_after`) instead of a stream or a body.
    http_error: bool = False
    describe: Callable[[Fault], str] | None = None

    def param(self, name: str) -> FaultParam:
        """The declared parameter `name`; a KeyError names the kind, the parameter and where to declare it."""
        for param in self.params:
            if param.name == name:
                return param
        raise KeyError(f"fault kind {self.kind!r} declares no parameter {name!r}; add it to the kind's row in "
                       "harness/scenario/_faults.py and to its block in schemas/scenario.schema.json#/$defs/fault")


def _raw(fault: Fault, name: str) -> object:
    """The scenario's value of parameter `name`, else its declared default (unconverted, as written)."""
    value = fault.params.get(name)
    return FAULTS[fault.kind].param(name).default if value is None else value


def _describe_keepalive(fault: Fault) -> str:
    return f"keepalive (a `:` comment after every {_raw(fault, 'every_events')} event(s))"


def _describe_fragment(fault: Fault) -> str:
    return f"fragment ({_raw(fault, 'bytes')}-byte writes, UTF-8 and line ends split)"


def _describe_crlf(fault: Fault) -> str:
    return "crlf (CRLF line ends)"


def _describe_framing(fault: Fault) -> str:
    style = str(fault.params.get("style", ""))
    return f"{style} ({FRAMING_STYLES.get(style, 'a framing the standard allows')})"


_AFTER_EVENTS = FaultParam("after_events", int, per_dialect=True)
_AFTER_BYTES = FaultParam("after_bytes", int, per_dialect=True)
_MS = FaultParam("ms", float, 0.0, required=True)
#: Over the Responses WebSocket mode, the close code the socket is closed with (docs/mock.md#websocket-mode).
_CLOSE_CODE = FaultParam("close_code", int, 1011)

#: Every fault kind, in the order of `FaultKind` and of the schema's `kind` enum (the order the mock reports the
#: faults it applied in).
_ROWS: dict[str, FaultSpec] = {
    "http_error": FaultSpec(
        "http_error", "an HTTP error with the dialect's error body instead of a stream",
        (FaultParam("status", int, 500, required=True), FaultParam("retry_after", float),
         FaultParam("message", str), FaultParam("echo_request", int, 0)),
        in_body=True, http_error=True),
    "stream_error": FaultSpec(
        "stream_error", "the dialect's in-stream failure (after `after_events` frames, else at the end)",
        (_AFTER_EVENTS, FaultParam("code", str), FaultParam("message", str), FaultParam("type", str)),
        cuts_stream=True, in_body=True),
    "disconnect": FaultSpec(
        "disconnect", "the connection drops (after events or bytes, default mid-stream)",
        (_AFTER_EVENTS, _AFTER_BYTES, _CLOSE_CODE), cuts_stream=True, in_body=True),
    "truncate": FaultSpec(
        "truncate", "the stream ends cleanly without its ending (or after events or bytes)",
        (_AFTER_EVENTS, _AFTER_BYTES, _CLOSE_CODE), cuts_stream=True, in_body=True),
    "malformed": FaultSpec(
        "malformed", "one event's JSON cut in half, still framed as an event",
        (_AFTER_EVENTS, _AFTER_BYTES), cuts_stream=True, in_body=True),
    "stall": FaultSpec(
        "stall", "no bytes for `ms` after `after_events` events",
        (_MS, FaultParam("after_events", int))),
    "keepalive": FaultSpec(
        "keepalive", "an SSE comment after every `every_events` events",
        (FaultParam("every_events", int, 1), FaultParam("comment", str, "keep-alive")),
        framing=True, describe=_describe_keepalive),
    "fragment": FaultSpec(
        "fragment", "every write split into `bytes`-byte writes",
        (FaultParam("bytes", int, 1, required=True),), framing=True, in_body=True, describe=_describe_fragment),
    "crlf": FaultSpec("crlf", "every line ending sent as CRLF", framing=True, describe=_describe_crlf),
    "framing": FaultSpec(
        "framing", "the same events framed another way SSE allows (`style`)",
        (FaultParam("style", str, "no_space", required=True),), framing=True, describe=_describe_framing),
    "slow_first_byte": FaultSpec(
        "slow_first_byte", "the response headers and first byte `ms` late", (_MS,), in_body=True),
}
#: The fault kinds by name (read-only).
FAULTS: Mapping[str, FaultSpec] = MappingProxyType(_ROWS)


def fault_param(fault: Fault, name: str, fallback: ParamValue = None) -> ParamValue:
    """`fault`'s parameter `name` converted to its declared type: the scenario's value, else `fallback` (a default
    computed when played), else the declared default; None when there is none."""
    param = FAULTS[fault.kind].param(name)
    value = fault.params.get(name)
    if value is None:
        value = param.default if fallback is None else fallback
    return None if value is None else param.type(value)


def _certain(faults: Iterable[Fault]) -> list[Fault]:
    """The faults that always fire (probability 1): those a case can be judged by before it runs."""
    return [f for f in faults if f.probability >= 1]


def cut_kinds(faults: Iterable[Fault]) -> frozenset[str]:
    """The kinds of the certain faults among `faults` that cut the stream short."""
    return frozenset(f.kind for f in _certain(faults) if f.kind in FAULTS and FAULTS[f.kind].cuts_stream)


def http_error_fault(faults: Iterable[Fault]) -> Fault | None:
    """The first certain fault among `faults` that answers with an HTTP error instead of a stream, or None."""
    return next((f for f in _certain(faults) if f.kind in FAULTS and FAULTS[f.kind].http_error), None)


def raw_http_error(faults: Iterable[Mapping[str, object]]) -> Mapping[str, object] | None:
    """`http_error_fault` for faults as written in a scenario file (objects with `kind`, `probability`, ...)."""
    for fault in faults:
        spec = FAULTS.get(str(fault["kind"]))
        probability = fault.get("probability", 1)
        if spec is not None and spec.http_error and isinstance(probability, int | float) and probability >= 1:
            return fault
    return None


def is_framing(kind: str) -> bool:
    """Whether fault `kind` only frames the same events another way (a client must report the same result)."""
    spec = FAULTS.get(kind)
    return spec is not None and spec.framing


def framing_variant(fault: Fault) -> str:
    """A framing fault named with what it does on the wire (CLI-010's messages)."""
    describe = FAULTS[fault.kind].describe
    if describe is None:
        raise ValueError(f"fault kind {fault.kind!r} is not a framing variant; only framing kinds name one")
    return describe(fault)
