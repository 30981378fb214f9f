"""A stream cut after its outcome was settled (docs/spec/verdicts.md §1): an Anthropic stream that ended cleanly
after `message_delta` carried its `stop_reason`, without `message_stop`. The anthropic SDK hands its caller the
whole Message then, and raises nothing; a client or a gateway may take the turn as finished or report the missing
`message_stop` as an error. Whatever the scenario expected of the cut, the case then expects the settled outcome
with `may_fail`: the calls and text the stream held, or an error. Decided on what the mock actually sent, never on
the scenario's script: a cut before the `stop_reason`, or an aborted body, settles nothing."""

from __future__ import annotations

from callproof.harness.outcome import Result
from callproof.harness.scenario import Expect

from ._expected import call_value, expects_success

__all__ = ["settled_expect"]


def settled_expect(expect: Expect, sent: Result | None) -> Expect:
    """The expectation of a case whose stream the mock `sent` (read as its reader holds it: the client's wire, the
    gateway's upstream answer): `expect` itself, unless that stream was cut after its outcome was settled and
    `expect` wants the response not to succeed; then the settled outcome, or a failure (`may_fail`)."""
    settled = sent.settled if sent is not None else None
    if settled is None or not expects_success(settled.status) or expects_success(expect.status) or expect.may_fail:
        return expect
    calls = tuple({"name": call.name, "arguments": call_value(call)} for call in settled.calls)
    return Expect(settled.status, text=settled.text, tool_calls=calls, may_fail=True)
