"""The mock's injectors (mock_server/_inject.py) are bound to the fault table (harness/scenario/_faults.py): every kind
has one and every injector a kind, stage by stage in the order that makes today's bytes; and each kind's flags are
what the mock plays: an HTTP error answers >= 400, a cut changes the events a client reads, a framing variant keeps
the events and changes only their framing, and a kind that applies to bodies changes the non-stream answer."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from callproof.harness import parse_sse
from callproof.harness.scenario import FAULTS, Fault, FaultKind, Scenario, bundled_scenarios
from callproof.mock_server import Plan, make_plan
from callproof.mock_server._inject import INJECTORS
from callproof.mock_server.dialects import RENDERERS, Dialect, RenderContext
from tests.harness.scenario.fault_bindings import injector_mismatches

ONE_CALL = bundled_scenarios()["one_call"]
#: The parameters each kind is played with here (the schema requires them), else none.
PARAMS: dict[str, dict[str, object]] = {
    "http_error": {"status": 503}, "stall": {"ms": 5}, "fragment": {"bytes": 3}, "framing": {"style": "cr_only"},
    "slow_first_byte": {"ms": 5},
}
STAGES = ("answer", "frames", "events", "bytes", "writes")


def test_every_kind_has_an_injector_and_every_injector_a_kind() -> None:
    assert injector_mismatches(FAULTS, INJECTORS) == []


def test_the_injectors_apply_stage_by_stage_in_the_order_that_makes_todays_bytes() -> None:
    assert list(INJECTORS) == [
        "slow_first_byte", "http_error", "stream_error", "malformed", "stall", "disconnect", "truncate", "keepalive",
        "framing", "crlf", "fragment",
    ]
    stages = [STAGES.index(injector.stage) for injector in INJECTORS.values()]
    assert stages == sorted(stages)


def _plan(scenario: Scenario, dialect: Dialect, *, stream: bool = True) -> Plan:
    return make_plan(scenario, RENDERERS[dialect], RenderContext(), stream=stream, rng=random.Random(0))


def _events(plan: Plan) -> list[tuple[str | None, str]]:
    return [(e.type, e.data) for e in parse_sse(plan.wire)[0]]


@pytest.mark.parametrize("dialect", sorted(RENDERERS))
@pytest.mark.parametrize("kind", list(FAULTS))
def test_each_kinds_flags_are_what_the_mock_plays(kind: FaultKind, dialect: Dialect) -> None:
    spec = FAULTS[kind]
    faulty = replace(ONE_CALL, faults=(Fault(kind, 1.0, PARAMS.get(kind, {})),))
    plain, played = _plan(ONE_CALL, dialect), _plan(faulty, dialect)
    assert played.faults == (kind,)
    assert (played.status >= 400) == spec.http_error
    if spec.http_error:
        return
    assert (_events(played) != _events(plain)) == spec.cuts_stream
    offsets = [w.at for w in played.writes]
    reframed = played.wire != plain.wire or len(offsets) > len(set(offsets))  # new bytes, or writes split apart
    assert (not spec.cuts_stream and reframed) == spec.framing
    body, plain_body = _plan(faulty, dialect, stream=False), _plan(ONE_CALL, dialect, stream=False)
    assert (replace(body, faults=()) != plain_body) == spec.in_body


def test_a_plan_names_the_faults_it_applied_in_the_tables_order() -> None:
    faults = tuple(Fault(k, 1.0, PARAMS.get(k, {})) for k in ("crlf", "stall", "keepalive", "disconnect"))
    assert _plan(replace(ONE_CALL, faults=faults), "chat").faults == ("disconnect", "stall", "keepalive", "crlf")


def test_a_stream_error_cut_keeps_a_chat_error_object_and_the_done_after_it() -> None:
    """`chat.done_after_error`: a stream_error fault with `after_events` keeps the first events, then both frames that
    end the failed stream, the error object and `data: [DONE]` (docs/spec/verdicts.md §11); without the option only the
    error object."""
    fault = Fault("stream_error", 1.0, {"after_events": 2})
    cut = replace(ONE_CALL, faults=(fault,))
    with_done = replace(cut, chat=replace(ONE_CALL.chat, done_after_error=True))
    plain, done = _events(_plan(cut, "chat")), _events(_plan(with_done, "chat"))
    assert len(plain) == 3 and plain[2][1].startswith('{"error":')
    assert done == [*plain, ("message", "[DONE]")]
