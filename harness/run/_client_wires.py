"""The client side of each transport of the transport table (callproof.harness.transports): how the harness reads
what the mock streamed to a client over it (`ClientWire`), by the transport's name."""

from __future__ import annotations

from callproof.harness._types import Dialect
from callproof.harness.outcome import Result
from callproof.harness.transports import DEFAULT_TRANSPORT
from callproof.mock_server import Journal

from ._client_wire import ClientWire, HTTPWire, Wire
from ._ws_client import WebSocketWire

__all__ = ["CLIENT_WIRES", "client_wire", "read_wire"]

#: How the harness reads a client's wire over each transport, by its name.
CLIENT_WIRES: dict[str, ClientWire] = {"http": HTTPWire(), "websocket": WebSocketWire()}


def client_wire(name: str) -> ClientWire:
    """The client side of transport `name`. Raises KeyError naming the transports with one."""
    try:
        return CLIENT_WIRES[name]
    except KeyError:
        raise KeyError(f"no client side for transport {name!r}; there are {', '.join(CLIENT_WIRES)}") from None


def read_wire(journal: Journal, case: str, dialect: Dialect, transport: str = DEFAULT_TRANSPORT) -> Wire:
    """What the mock answered the case, read through the client's transport (`client_wire`)."""
    requests = journal.requests(case=case)
    if not requests:
        return Result("error", "", (), "no request", error="the adapter never called the mock"), (), 0, ()
    return client_wire(transport).read(journal, requests, dialect)
