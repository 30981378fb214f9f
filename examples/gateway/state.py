"""The Responses front's state (docs/spec/stateful.md): the responses it answered, kept by id so that a later
request's `previous_response_id` continues one, and the refusal it answers when it cannot.

The gateway honours the stateful fields: a continuation is rebuilt from the kept conversation (the earlier input
items, then the earlier output items, then the new input) and sent whole to the upstream, whatever its dialect
(every upstream is treated as stateless: `previous_response_id` is never passed on); a response made with `store:
false` is not kept, so a continuation of it is refused with `previous_response_not_found`; reasoning items with
`encrypted_content` pass through to a Responses upstream unchanged (`model.Reasoning`) and are left out for the
others, which cannot decrypt them (§3). The store is in memory and bounded: the oldest response goes first.
"""

from __future__ import annotations

from collections import OrderedDict
from threading import Lock

from starlette.responses import JSONResponse

from .model import Json

__all__ = ["DEFAULT_LIMIT", "ResponseStore", "StatefulRefusal"]

#: How many responses the store keeps (the oldest is forgotten first; a continuation of it is then refused).
DEFAULT_LIMIT = 1024


class StatefulRefusal(ValueError):
    """A stateful field the front does not honour for this request: answered with HTTP 400, `error.param` naming
    the field and `error.code` saying why (docs/spec/stateful.md §1)."""

    def __init__(self, message: str, param: str, code: str) -> None:
        super().__init__(message)
        self.param = param
        self.code = code

    def response(self) -> JSONResponse:
        return JSONResponse({"error": {"message": str(self), "type": "invalid_request_error", "param": self.param,
                                       "code": self.code}}, status_code=400)


class ResponseStore:
    """The conversation of each kept response (its input items, then its output items), by response id."""

    def __init__(self, limit: int = DEFAULT_LIMIT) -> None:
        self.limit = limit
        self._items: OrderedDict[str, list[Json]] = OrderedDict()
        self._lock = Lock()

    def get(self, response_id: str) -> list[Json] | None:
        with self._lock:
            items = self._items.get(response_id)
            return list(items) if items is not None else None

    def put(self, response_id: str, items: list[Json]) -> None:
        with self._lock:
            self._items[response_id] = list(items)
            self._items.move_to_end(response_id)
            while len(self._items) > self.limit:
                self._items.popitem(last=False)

    def __len__(self) -> int:
        return len(self._items)
