"""One HTTP exchange with the implementation under test, as a value: the request and every chunk of the answer
with the `time.monotonic()` it was read at (the mock's journal uses the same clock). `run._http_exchange` records it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from callproof.harness._types import JSONData

__all__ = ["Chunk", "Exchange"]


@dataclass(frozen=True, slots=True)
class Chunk:
    time: float
    data: bytes


@dataclass(frozen=True, slots=True)
class Exchange:
    """A request and everything that came back. `status` is None when no response head arrived."""

    url: str
    request: Mapping[str, Any]
    sent: float
    status: int | None
    headers: Mapping[str, str]
    chunks: tuple[Chunk, ...]
    error: str | None = None
    timed_out: bool = False
    #: Why reading stopped early at a run limit (`--max-events`, `--max-bytes`), naming it and the count; None when
    #: the answer was read to its end (or to an error).
    over_limit: str | None = None
    #: Why the body did not end cleanly, the answer's head having arrived: the connection closed before a chunked
    #: body's last (zero-length) chunk or short of its Content-Length (httpx's `RemoteProtocolError`), or was reset
    #: (`ReadError`); None when the body ended cleanly, or was not read to an end by the harness (a timeout, a run
    #: limit: `timed_out`, `over_limit`). An SDK raises on an aborted body (docs/spec/verdicts.md §7).
    aborted: str | None = None

    @property
    def body(self) -> bytes:
        return b"".join(c.data for c in self.chunks)

    def json(self) -> JSONData:
        """The body as JSON, or None when it is not JSON."""
        try:
            return json.loads(self.body)
        except ValueError:
            return None

    @property
    def is_sse(self) -> bool:
        return self.headers.get("content-type", "").split(";")[0].strip() == "text/event-stream"
