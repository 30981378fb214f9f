"""Stateful fields a gateway's Responses front meets (docs/spec/stateful.md): a continuation
(`previous_response_id`), `store: false` and reasoning items carrying `encrypted_content`. Each is honoured or
refused in the documented shape, never silently dropped; `--policy stateful=either|reject|honor` says which a run
accepts (GW-STATE-001..003; GW-STATE-003, encrypted reasoning, is judged in `_stateful_reasoning`).

The functions here are pure: they read the front requests of a conversation's turns (Responses create params, the
form the harness sends), what the client got back for the earlier turns (their output items), the request the
upstream received for the turn judged (in the upstream's dialect, None when the gateway did not call it) and the
refusal the front answered instead (an HTTP error body, or a WebSocket `error` event), and write findings. A
transport (HTTP front, WebSocket front) plays the turns and calls them; `check_continuation` takes the rule id it
judges under, so a WebSocket front's rule can be built on it.

Items are compared as entries, one per conversational unit whatever the dialect: a user or assistant text, a
function call (call id, name, arguments as JSON), a function call's output (call id, text), an encrypted reasoning
item (its ciphertext). System and developer text is not compared (instructions do not carry over a
continuation, docs/spec/stateful.md §2).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from callproof.harness._types import JSONValue
from callproof.harness.catalogue import Evidence
from callproof.harness.check import short
from callproof.harness.dialects import DIALECTS, Entry
from callproof.harness.dialects.responses import item_entries

from ._findings import Findings
from ._request_shapes import same_output

__all__ = [
    "REFUSAL_CODES",
    "STATEFUL_POLICIES",
    "STATEFUL_TAG",
    "EarlierTurn",
    "Refusal",
    "check_continuation",
    "check_store",
    "describe_entry",
    "entries_of",
    "new_entries",
    "order_problems",
    "refusal_problem",
    "responses_output",
]

#: The scenario tag of the stateful scenarios (scenarios/stateful.json), judged in their `stateful` case.
STATEFUL_TAG = "stateful"
#: `--policy stateful=...`: the default accepts a documented refusal or an honoured field; the others pin one.
STATEFUL_POLICIES = ("either", "reject", "honor")
#: The `error.code` of a documented refusal: the field is not supported, or the response it names is unknown
#: (never stored: `store: false`, evicted, or never issued by this gateway).
REFUSAL_CODES = ("unsupported_parameter", "previous_response_not_found")

@dataclass(frozen=True, slots=True)
class EarlierTurn:
    """One earlier turn of a conversation: the front request the client sent (Responses create params), the output
    items the client got back (Responses items, as in `response.completed`'s `response.output`), the response's id
    at the front, and the id the upstream gave its response when the upstream speaks Responses (a gateway may pass
    a continuation through to the upstream that holds that response)."""

    request: Mapping[str, Any]
    output: tuple[Mapping[str, Any], ...]
    response_id: str | None = None
    upstream_response_id: str | None = None


@dataclass(frozen=True, slots=True)
class Refusal:
    """What the front answered instead of calling its upstream: the HTTP status and JSON body of an error answer,
    or (over a WebSocket, `status` None) the `error` event."""

    status: int | None
    body: JSONValue


# -- entries --

def entries_of(dialect: str, body: Mapping[str, Any]) -> list[Entry]:
    """The conversational entries of a request body in `dialect` (a Responses body: its `input`), in order."""
    return DIALECTS[dialect].entries(body)


def _same(wanted: Entry, got: Entry) -> bool:
    if wanted[0] != got[0]:
        return False
    if wanted[0] in ("user", "assistant"):
        return isinstance(got[1], str) and wanted[1].strip() in got[1]
    if wanted[0] == "call":
        return bool(got[1] == wanted[1] and got[2] == wanted[2] and got[3] == wanted[3])
    if wanted[0] == "output":
        return got[1] == wanted[1] and same_output(wanted[2], got[2])
    return bool(got[1] == wanted[1])


def describe_entry(entry: Entry) -> str:
    if entry[0] in ("user", "assistant"):
        return f"the {entry[0]} text {short(entry[1])}"
    if entry[0] == "call":
        return f"the function call {entry[1]!r} ({entry[2]})"
    if entry[0] == "output":
        return f"the output of call {entry[1]!r}"
    return f"the encrypted reasoning {short(entry[1])}"


def order_problems(wanted: Sequence[Entry], got: Sequence[Entry]) -> list[tuple[str, Entry]]:
    """What is missing, out of order or duplicated of `wanted` in `got` (each once, in order)."""
    problems: list[tuple[str, Entry]] = []
    at = 0
    for entry in wanted:
        hits = [i for i, g in enumerate(got) if _same(entry, g)]
        after = [i for i in hits if i >= at]
        if not hits:
            problems.append(("missing", entry))
        elif not after:
            problems.append(("out of order", entry))
        else:
            at = after[0] + 1
        if len(hits) > 1 and sum(1 for w in wanted if _same(w, entry)) < len(hits):
            problems.append(("duplicated", entry))
    return problems


# -- the front's answer --

def responses_output(events: Sequence[Mapping[str, Any]] | None = None,
                     body: Mapping[str, Any] | None = None) -> tuple[str | None, tuple[Mapping[str, Any], ...]]:
    """The response id and output items a client got: from a stream's event payloads (`response.completed`'s
    `response`, else each `response.output_item.done` item in order) or from a non-stream body."""
    if body is not None:
        output = body.get("output")
        return (body.get("id") if isinstance(body.get("id"), str) else None,
                tuple(o for o in output if isinstance(o, Mapping)) if isinstance(output, list) else ())
    rid: str | None = None
    done: list[Mapping[str, Any]] = []
    for event in events or ():
        response = event.get("response")
        if isinstance(response, Mapping) and isinstance(response.get("id"), str):
            rid = response["id"]
            if event.get("type") in ("response.completed", "response.incomplete") and isinstance(
                    response.get("output"), list) and response["output"]:
                return rid, tuple(o for o in response["output"] if isinstance(o, Mapping))
        if event.get("type") == "response.output_item.done" and isinstance(event.get("item"), Mapping):
            done.append(event["item"])
    return rid, tuple(done)


# -- refusals --

def refusal_problem(refusal: Refusal, params: Sequence[str], codes: Sequence[str]) -> tuple[str, Evidence] | None:
    """What a refusal lacks against the documented shape (docs/spec/stateful.md §1): HTTP 400 (any status over a
    WebSocket), an OpenAI error object with `type: invalid_request_error`, a `param` naming the field, a `code`
    among `codes`. None when it has them all."""
    if refusal.status is not None and refusal.status != 400:
        return (f"the front answered HTTP {refusal.status}, not 400",
                Evidence(path="HTTP status", expected=400, actual=refusal.status))
    body = refusal.body
    error = body.get("error") if isinstance(body, Mapping) else None
    if not isinstance(error, Mapping) and isinstance(body, Mapping) and body.get("type") == "error":
        error = body  # a WebSocket error event may carry the fields flat (the SDK's ResponseErrorEvent)
    if not isinstance(error, Mapping) or not isinstance(error.get("message"), str):
        return ("its body is not an OpenAI error object with a `message`",
                Evidence(path="$.error", expected='{"message", "type", "param", "code"}', actual=short(body)))
    param = error.get("param")
    if not isinstance(param, str) or not any(param == p or param.startswith((f"{p}[", f"{p}.")) for p in params):
        return (f"its error.param is {short(param)}, not the field refused ({' or '.join(params)})",
                Evidence(path="$.error.param", expected=" or ".join(params), actual=short(param)))
    if error.get("code") not in codes:
        return (f"its error.code is {short(error.get('code'))}, not one of {', '.join(codes)}",
                Evidence(path="$.error.code", expected=" or ".join(codes), actual=short(error.get("code"))))
    if refusal.status is not None and error.get("type") != "invalid_request_error":
        return (f"its error.type is {short(error.get('type'))}, not invalid_request_error",
                Evidence(path="$.error.type", expected="invalid_request_error", actual=short(error.get("type"))))
    return None


# -- GW-STATE-001: continuations --

def _continuation_refused(findings: Findings, rule: str, refusal: Refusal | None, policy: str) -> None:
    """`rule` when the gateway did not call its upstream for a continuation: a refusal in the documented shape,
    unless the policy is honor."""
    if policy == "honor":
        findings.fail(rule, f"--policy stateful={policy}: the gateway refused the continuation (previous_response_id) "
                      "instead of honouring it: keep the earlier turns and rebuild the conversation for the upstream",
                      Evidence(path="$.previous_response_id", expected="honoured",
                               actual=short(refusal.body) if refusal else "no upstream request"))
        return
    if refusal is None:
        findings.fail(rule, "the gateway neither called its upstream for the continuation nor refused it",
                      Evidence(path="$.previous_response_id", expected="an upstream request or a refusal"))
        return
    problem = refusal_problem(refusal, ("previous_response_id",), REFUSAL_CODES)
    if problem is not None:
        why, evidence = problem
        findings.fail(rule, f"the gateway refused the continuation, but {why}: a refusal is HTTP 400 with "
                      "error.type invalid_request_error, error.param previous_response_id and error.code "
                      f"{' or '.join(REFUSAL_CODES)} (docs/spec/stateful.md §1)", evidence)


def check_continuation(
    findings: Findings, *, earlier: Sequence[EarlierTurn], request: Mapping[str, Any],
    upstream: Mapping[str, Any] | None, upstream_dialect: str, refusal: Refusal | None = None,
    policy: str = "either", rule: str = "GW-STATE-001",
) -> None:
    """`rule` (GW-STATE-001 by default) on a continuation: `request` is the front request naming the last earlier
    turn's response in `previous_response_id`, `upstream` the request the upstream got for it (None: the gateway
    did not call it, and `refusal` is what the front answered instead).

    Honoured: the upstream request carries every earlier turn's entries (its input, then its output) and then the
    new input, each once, in order; or, to a Responses upstream, `previous_response_id` naming the response that
    upstream issued for the last earlier turn, with the new input. Refused: the documented error (HTTP 400,
    `invalid_request_error`, `param: previous_response_id`, a code of `REFUSAL_CODES`). `policy` `honor` fails a
    refusal, `reject` an honoured continuation; anything else fails."""
    findings.check(rule)
    if upstream is None:
        _continuation_refused(findings, rule, refusal, policy)
        return
    if policy == "reject":
        findings.fail(rule, f"--policy stateful={policy}: the gateway called its upstream for a continuation "
                      "instead of refusing it",
                      Evidence(path="upstream request $", expected="no upstream request; HTTP 400 naming "
                               "previous_response_id", actual="an upstream request"))
        return
    new = new_entries(request)
    spec = DIALECTS[upstream_dialect]
    passed_on = upstream.get("previous_response_id") if spec.previous_response_id else None
    last = earlier[-1] if earlier else None
    if passed_on is not None:
        issued = last.upstream_response_id if last is not None else None
        if passed_on != issued:
            findings.fail(rule, f"the upstream request names previous_response_id {short(passed_on)}, which is not "
                          f"the response the upstream issued for the earlier turn ({short(issued)}): the earlier "
                          "turns are lost; rebuild them from the gateway's own store or pass the upstream's id",
                          Evidence(path="upstream request $.previous_response_id", expected=issued, actual=passed_on))
            return
        wanted = new
    else:
        wanted = [e for turn in earlier for e in [*new_entries(turn.request), *item_entries(turn.output)]]
        wanted += new
    if not spec.sealed_reasoning:  # no dialect but Responses carries encrypted reasoning (§3)
        wanted = [e for e in wanted if e[0] != "reasoning"]
    got = entries_of(upstream_dialect, upstream)
    for kind, entry in order_problems(wanted, got):
        where = f"$.{spec.messages_key}"
        earlier_item = entry not in new
        findings.fail(rule, f"{describe_entry(entry)} of the {'earlier turns' if earlier_item else 'new input'} is "
                      f"{kind} in the upstream request of the continuation"
                      + (": the gateway dropped previous_response_id silently; honour it (rebuild the earlier "
                         "items, in order) or refuse it with HTTP 400" if kind == "missing" and earlier_item
                         else ""),
                      Evidence(path=f"upstream request {where}", expected=describe_entry(entry),
                               actual=short([g[:2] for g in got])))


def new_entries(request: Mapping[str, Any]) -> list[Entry]:
    items = request.get("input")
    if isinstance(items, str):
        return [("user", items)]
    return item_entries(items if isinstance(items, list) else [])


# -- GW-STATE-002: store --

def check_store(
    findings: Findings, *, request: Mapping[str, Any], first_upstream: Mapping[str, Any] | None,
    upstream_dialect: str, continued: Mapping[str, Any] | None, refusal: Refusal | None,
) -> None:
    """GW-STATE-002 for a turn sent with `store: false` (`request`) and a continuation naming its response:
    `store: false` reaches a Responses upstream as `store: false` (a Chat upstream never gets `store: true`), and
    the gateway keeps nothing of it: the continuation is refused (HTTP 400, param previous_response_id), or passed
    to the Responses upstream that issued the response, which decides (`continued` is the continuation's upstream
    request, None when the gateway did not call it)."""
    findings.check("GW-STATE-002")
    if request.get("store") is not False:
        return
    if first_upstream is not None:
        stored = first_upstream.get("store")
        spec = DIALECTS[upstream_dialect]
        if spec.stores_by_default is True and stored is not False:
            got = "no store field" if stored is None else f"store: {short(stored)}"
            findings.fail("GW-STATE-002", f"the client sent store: false and the {spec.short} upstream got {got} "
                          f"(a {spec.short} upstream stores by default): forward store: false",
                          Evidence(path="upstream request $.store", expected=False, actual=stored))
        elif spec.stores_by_default is False and stored is True:
            findings.fail("GW-STATE-002", f"the client sent store: false and the {spec.short} upstream got store: "
                          "true",
                          Evidence(path="upstream request $.store", expected=False, actual=stored))
    if continued is not None:
        if DIALECTS[upstream_dialect].previous_response_id and continued.get("previous_response_id") is not None:
            return  # the upstream that issued the response decides
        findings.fail("GW-STATE-002", "the gateway continued a response made with store: false: it kept what the "
                      "client asked it not to store; answer a continuation naming it with HTTP 400 "
                      "previous_response_not_found",
                      Evidence(path="upstream request $", expected="no upstream request (refused)",
                               actual=short(entries_of(upstream_dialect, continued))))
        return
    if refusal is None:
        findings.fail("GW-STATE-002", "the gateway neither refused the continuation of a store: false response nor "
                      "called its upstream", Evidence(path="$.previous_response_id", expected="HTTP 400"))
        return
    problem = refusal_problem(refusal, ("previous_response_id",), REFUSAL_CODES)
    if problem is not None:
        why, evidence = problem
        findings.fail("GW-STATE-002", f"the gateway refused the continuation of a store: false response, but {why} "
                      "(docs/spec/stateful.md §1)", evidence)
