"""The transport table (`TRANSPORTS`): one `TransportSpec` row per transport, read by every part that names one."""

from __future__ import annotations

from ._spec import TransportSpec
from ._table import DEFAULT_TRANSPORT, TRANSPORTS, TransportChoices, own_prefixes, transport, transport_names

__all__ = [
    "DEFAULT_TRANSPORT",
    "TRANSPORTS",
    "TransportChoices",
    "TransportSpec",
    "own_prefixes",
    "transport",
    "transport_names",
]
