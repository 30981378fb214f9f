"""Whether an answer can be judged at all (no verdict without evidence, docs/report.md#outcomes).

A stream request answered with an HTML page, an empty or undecodable stream, a stream still open at the case
timeout: the rules of a case would find nothing to apply to, and a rule applied to nothing passes. Such an answer
is *unjudgeable*: its cases are `error` (or `failed`, where a MUST rule found a defect in what did arrive), never
`passed` or `skipped`, and the message names what arrived.
"""

from __future__ import annotations

import json

from callproof.harness._types import DIALECT_NAMES, FRONT_PATHS, Dialect
from callproof.harness.check import payload_dialect
from callproof.harness.scenario import Scenario

from ._adapter import AdapterRun
from ._expected import expects_success
from ._gateway import FrontAnswer

__all__ = [
    "NO_RESULT", "NO_STREAM", "adapter_problem", "answer_problem", "dialect_mismatch", "spoken_dialect",
    "what_arrived",
]

#: How the reason of an unjudgeable gateway answer, and of an adapter run without a result, begin.
NO_STREAM = "no judgeable stream"
NO_RESULT = "no result to judge"


def what_arrived(answer: FrontAnswer) -> str:
    """What came back, in one phrase: 'HTTP 200 text/html, 162 bytes, 0 events'."""
    exchange = answer.exchange
    kind = exchange.headers.get("content-type", "").split(";")[0].strip() or "no content-type"
    events = len(answer.events)
    last = f" (the last {answer.events[-1].type!r})" if events else ""
    size = len(exchange.body)
    status = "no HTTP status" if exchange.status is None else f"HTTP {exchange.status}"
    return (f"{status} {kind}, {size} byte{'' if size == 1 else 's'}, "
            f"{events} event{'' if events == 1 else 's'}{last}")


def spoken_dialect(answer: FrontAnswer) -> Dialect | None:
    """The dialect the front answered in, judged by the first event (or the body) that names one; None for an
    HTTP error, or when nothing names a dialect."""
    exchange = answer.exchange
    if exchange.status is None or exchange.status >= 400:
        return None
    if not exchange.is_sse:
        return payload_dialect(exchange.json())
    for event in answer.events[:8]:
        try:
            found = payload_dialect(json.loads(event.data))
        except ValueError:
            continue
        if found is not None:
            return found
    return None


def dialect_mismatch(answer: FrontAnswer, front_url: str) -> str | None:
    """One line when the front answered in another dialect than the run declared (`--front`), else None."""
    spoken = spoken_dialect(answer)
    if spoken is None or spoken == answer.front:
        return None
    what = "events" if answer.events else "a body"
    return (f"--front {answer.front}: the front at {front_url} answered with {DIALECT_NAMES[spoken]} {what}, not "
            f"{DIALECT_NAMES[answer.front]}; run with --front {spoken}, or point --front-url at the gateway's "
            f"{DIALECT_NAMES[answer.front]} endpoint (usually {FRONT_PATHS[answer.front]})")


def answer_problem(answer: FrontAnswer, scenario: Scenario, *, upstream_called: bool = True) -> str | None:
    """Why the front's answer to `scenario` cannot be judged, naming what arrived; None when it can.

    Unjudgeable: an answer cut off by the case timeout (even after some events: the stream was not complete, so
    no stream rule can certify it); an HTTP error where the scenario expects success, or where the IUT never
    called its upstream (`upstream_called`: the mock received no request for the case) — where the scenario
    expects the upstream to fail and it was called, an HTTP error is a legitimate way to pass the failure on,
    judged by the expected and fault rules, and so is a refusal where the scenario allows failing the response
    (`may_fail`: a call whose arguments are not JSON, which a non-stream Chat front can only refuse with an HTTP
    error, docs/spec/contracts.md §7.8); for a stream request, a body that is not `text/event-stream` or an
    event stream with no event; for a non-stream request, a body that is not a JSON object."""
    exchange = answer.exchange
    streamed = scenario.request.get("stream", True) is not False
    noun = "stream" if streamed else "body"
    head = f"{NO_STREAM}" if streamed else "no judgeable body"
    if exchange.timed_out:
        return f"{head}: {exchange.error or 'the case timed out'}; {what_arrived(answer)} had arrived"
    status = exchange.status or 0
    if status >= 400:
        if not expects_success(scenario.expect.status) or scenario.expect.may_fail:
            if upstream_called:
                return None
            return f"{head}: {what_arrived(answer)}, an HTTP error without a request to the upstream"
        return (f"{head}: {what_arrived(answer)}, an HTTP error where the scenario expects a "
                f"{scenario.expect.status} {noun}")
    if streamed and not exchange.is_sse:
        return f"{head}: a stream request was answered with {what_arrived(answer)}, not text/event-stream"
    if streamed and not answer.events:
        return f"{head}: {what_arrived(answer)}: nothing the stream rules can apply to"
    if not streamed and exchange.is_sse:
        return f"{head}: a non-stream request was answered with {what_arrived(answer)}, not a JSON body"
    if not streamed and not isinstance(exchange.json(), dict):
        return f"{head}: {what_arrived(answer)}, not a JSON object"
    return None


def adapter_problem(run: AdapterRun) -> str | None:
    """Why a client adapter run gave nothing to judge (no output, not the protocol, crash, timeout), or None."""
    if run.result is not None:
        return None
    return f"{NO_RESULT}: {run.problem or 'the adapter printed no result'}"
