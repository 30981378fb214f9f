"""The transport table (`TRANSPORTS`): one `TransportSpec` row per transport, read by every part that names one."""

from __future__ import annotations

from ._table import DEFAULT_TRANSPORT, TRANSPORTS, TransportChoices, own_prefixes, transport, transport_names
from ._transport_spec import TransportSpec

__all__ = [
    "DEFAULT_TRANSPORT",
    "TRANSPORTS",
    "TransportChoices",
    "TransportSpec",
    "own_prefixes",
    "transport",
    "transport_names",
]
