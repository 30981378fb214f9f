"""Gateways that get the stateful fields wrong (docs/spec/stateful.md): the reference gateway's Responses front (or
Responses upstream) with one defect each, caught by GW-STATE-001..003 in the `stateful` cases. `RejectsStateful` is
correct under the default policy and `--policy stateful=reject`: it keeps no state and refuses every continuation in
the documented shape, which `--policy stateful=honor` fails."""

from __future__ import annotations

from starlette.responses import JSONResponse

from examples.gateway import Json, ResponsesFront, ResponsesUpstream
from examples.gateway.fronts.responses import Turn, input_items
from examples.gateway.model import Part, Reasoning, Request
from examples.gateway.state import StatefulRefusal

__all__ = ["STATEFUL_DEFECTS"]


class DropsPreviousResponseId(ResponsesFront):
    """drops_previous_response_id: previous_response_id is ignored: the upstream gets only the new input, as if the
    conversation started there (GW-STATE-001)."""

    def continued(self, body: Json) -> Json:
        return {key: value for key, value in body.items() if key != "previous_response_id"}


class _WrongShape(StatefulRefusal):
    def response(self) -> JSONResponse:
        return JSONResponse({"detail": "stateful requests are not supported"}, status_code=501)


class RefusesInWrongShape(ResponsesFront):
    """refuses_in_wrong_shape: refuses every continuation, but with HTTP 501 and a body that is no OpenAI error
    object (no error.param, no error.code): clients cannot tell what to fix (GW-STATE-001)."""

    def continued(self, body: Json) -> Json:
        if body.get("previous_response_id") is not None:
            raise _WrongShape("no", "previous_response_id", "unsupported_parameter")
        return body


class RejectsStateful(ResponsesFront):
    """rejects_stateful (correct unless --policy stateful=honor): keeps no state; every previous_response_id is
    refused with HTTP 400, param previous_response_id, code unsupported_parameter (GW-STATE-001 under honor)."""

    def continued(self, body: Json) -> Json:
        if body.get("previous_response_id") is not None:
            raise StatefulRefusal("previous_response_id is not supported by this gateway; send the whole "
                                  "conversation as input.", "previous_response_id", "unsupported_parameter")
        return body


class KeepsStoreFalse(ResponsesFront):
    """keeps_store_false: keeps responses made with store: false and continues them, and forwards store: false to
    no upstream (GW-STATE-002)."""

    def continued(self, body: Json) -> Json:
        return super().continued({key: value for key, value in body.items() if key != "store"})

    def remember(self, turn: Turn) -> None:
        if turn.result is not None and turn.result.get("status") in ("completed", "incomplete"):
            self.responses.put(turn.id, [*input_items(turn.front), *turn.result["output"]])


class DropsEncryptedReasoning(ResponsesFront):
    """drops_encrypted_reasoning: reasoning input items are dropped even for a Responses upstream, which could
    have taken them byte for byte (GW-STATE-003, over a Responses upstream)."""

    def parse_history(self, items: list[Json]) -> list[Part]:
        return [part for part in super().parse_history(items) if not isinstance(part, Reasoning)]


class AltersEncryptedReasoning(ResponsesUpstream):
    """alters_encrypted_reasoning: the Responses upstream gets each reasoning item re-encoded (its
    encrypted_content with the base64 padding stripped), no longer the bytes the client sent (GW-STATE-003)."""

    def translate_input(self, request: Request) -> list[Json]:
        return [{**item, "encrypted_content": str(item["encrypted_content"]).rstrip("=")}
                if item.get("type") == "reasoning" and item.get("encrypted_content") else item
                for item in super().translate_input(request)]


STATEFUL_DEFECTS: dict[str, type[ResponsesFront] | type[ResponsesUpstream]] = {
    "drops_previous_response_id": DropsPreviousResponseId,
    "refuses_in_wrong_shape": RefusesInWrongShape,
    "rejects_stateful": RejectsStateful,
    "keeps_store_false": KeepsStoreFalse,
    "drops_encrypted_reasoning": DropsEncryptedReasoning,
    "alters_encrypted_reasoning": AltersEncryptedReasoning,
}
