"""One row of the transport table (`_table.TRANSPORTS`): a way a stream travels between a client and a
server (SSE over HTTP, the Responses API's WebSocket mode). Everything that names a transport reads this table: the
CLI's choices (`--client-transport`, `--front-transport`, `--upstream-transport`, `callproof check --transport`),
the run's checks of its options, the stream rules judged over a transport (`transport_applies`), the rule groups a
transport drops and adds to a plan, and the URL a transport connects to.

Adding a transport is one row module beside `http.py` and `websocket.py`, its row in `TRANSPORTS`, and its
run-floor parts (harness/run: how the harness plays a front and a client over it; mock_server: how the mock frames
a plan's events over it): see docs/spec/transports.md#adding-a-transport.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from callproof.harness._types import Dialect

__all__ = ["TransportSpec"]

@dataclass(frozen=True, slots=True)
class TransportSpec:
    """One transport. `name`: its one spelling (CLI, config, journal, report). `title`: how prose names it.
    `capture_name`: how `callproof check --transport` names a capture of it (an SSE capture is `sse`, as it always
    was). `summary`: what it is, in a sentence's words. `dialects`: the dialects it carries (None: every one).
    `sse_framing`: the SSE framing rules (the `framing` family: `event:` lines, `[DONE]`, blank lines) read its real
    bytes. `rule_prefix`: the prefix of the stream rules judged over it alone (its transcript rules). `excludes`:
    the rule groups with nothing to judge over it. `adds`: the rule groups only it plans (their cases judge what a
    run over it gathers). `streams_only`: a scenario asking for a non-stream body has nothing to send over it.
    `schemes`: URL schemes of an HTTP URL as this transport reaches the same server (http -> ws).
    `url_env`: the variable an adapter command reads this transport's base URL from (docs/adapters.md)."""

    name: str
    title: str
    capture_name: str
    summary: str = ""
    dialects: frozenset[Dialect] | None = None
    sse_framing: bool = False
    rule_prefix: str | None = None
    excludes: frozenset[str] = frozenset()
    adds: tuple[str, ...] = ()
    streams_only: bool = False
    schemes: tuple[tuple[str, str], ...] = ()
    url_env: str | None = None

    def carries(self, dialect: Dialect) -> bool:
        """Whether this transport carries `dialect`."""
        return self.dialects is None or dialect in self.dialects

    def url(self, http_url: str) -> str:
        """The URL this transport reaches an HTTP URL's server at (the scheme swapped: http -> ws, https -> wss)."""
        for http, own in self.schemes:
            if http_url.startswith(http + "://"):
                return own + http_url[len(http):]
        return http_url

    def judges(self, rule_id: str, family: str, own_prefixes: Sequence[str]) -> bool:
        """Whether a stream rule is judged on events that travelled over this transport: a transport's own rules
        (`own_prefixes`: every transport's `rule_prefix`) over it alone; the SSE framing rules where `sse_framing`."""
        if any(rule_id.startswith(prefix) for prefix in own_prefixes):
            return self.rule_prefix is not None and rule_id.startswith(self.rule_prefix)
        return self.sse_framing or family != "framing"

