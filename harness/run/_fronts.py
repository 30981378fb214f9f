"""The fronts of a gateway, one per transport of the transport table (callproof.harness.transports): the harness
plays every scenario through the row of `--front-transport`."""

from __future__ import annotations

from ._front_protocol import FrontKind
from ._http_front import HTTPFront
from ._ws_front import WebSocketFront

__all__ = ["FRONTS", "front_for"]

#: How the harness plays a gateway's front over each transport of the transport table, by its name.
FRONTS: dict[str, FrontKind] = {"http": HTTPFront, "websocket": WebSocketFront}


def front_for(name: str) -> FrontKind:
    """The front of transport `name`. Raises KeyError naming the transports with a front."""
    try:
        return FRONTS[name]
    except KeyError:
        raise KeyError(f"no front for transport {name!r}; the fronts are {', '.join(FRONTS)}") from None
