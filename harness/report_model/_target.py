"""What a report says it tested and where: the implementation under test (`Target`) and the platform the run ran
on (`Platform`), as the report's `target` and `platform` objects hold them."""

from __future__ import annotations

import platform
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from callproof.harness._types import Dialect, JSONValue
from callproof.harness.transports import DEFAULT_TRANSPORT, transport

__all__ = ["Platform", "Target"]


def _extra(data: Mapping[str, Any], known: Iterable[str]) -> dict[str, JSONValue]:
    """The keys of an open JSON object the model has no field for: kept, so `to_json` gives them back."""
    names = set(known)
    return {k: v for k, v in data.items() if k not in names}


_TARGET = ("kind", "command", "url", "app", "client", "how", "front", "upstream_dialect", "client_dialect",
           "front_transport", "upstream_transport", "client_transport", "policy")
#: The transports a target may name, by the key it is named with: the run's `--front-transport`,
#: `--upstream-transport` (gateway runs) and `--client-transport` (client runs).
_TRANSPORTS = {"gateway": ("front_transport", "upstream_transport"), "client": ("client_transport",)}


def _said(name: str) -> str:
    """How a transport reads in a phrase (` over WebSocket`): its title in the transport table; the default (HTTP,
    SSE for a stream) and a name the table does not know go unsaid."""
    try:
        spec = transport(name)
    except KeyError:
        return ""
    return "" if spec.name == DEFAULT_TRANSPORT else f" over {spec.title}"


@dataclass(frozen=True, slots=True)
class Target:
    """The implementation under test: what it is (`kind`), how it was given (`how`) and the command, URL, app or
    client named."""

    kind: Literal["gateway", "client", "capture"]
    how: str
    command: str | None = None
    url: str | None = None
    app: str | None = None
    client: str | None = None
    upstream_dialect: Dialect | None = None
    #: The dialect a gateway serves its callers (gateway runs), and the dialect a client speaks (client runs).
    front: Dialect | None = None
    client_dialect: Dialect | None = None
    extra: Mapping[str, JSONValue] | None = None
    #: How the harness reached the gateway's front, the gateway the mock (gateway runs), and the client the mock
    #: (client runs): a name of the transport table (`http`, `websocket`). None in reports from before they were
    #: recorded: read as `http`.
    front_transport: str | None = None
    upstream_transport: str | None = None
    client_transport: str | None = None
    #: The run policies (`--policy KEY=VALUE`, docs/cli.md#policies), every key with its value; None in reports
    #: from before they were recorded.
    policy: Mapping[str, str] | None = None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Target:
        policy = data.get("policy")
        return cls(data["kind"], data["how"], data.get("command"), data.get("url"), data.get("app"),
                   data.get("client"), data.get("upstream_dialect"), data.get("front"), data.get("client_dialect"),
                   _extra(data, _TARGET) or None, data.get("front_transport"), data.get("upstream_transport"),
                   data.get("client_transport"), dict(policy) if isinstance(policy, Mapping) else None)

    def to_json(self) -> dict[str, JSONValue]:
        out: dict[str, JSONValue] = {k: getattr(self, k) for k in _TARGET if getattr(self, k) is not None}
        if self.policy is not None:
            out["policy"] = dict(self.policy)
        return {**out, **(self.extra or {})}

    @property
    def policies(self) -> str | None:
        """The run policies in one phrase, `xml-tool-text=convert`; None when the report holds none."""
        if not self.policy:
            return None
        return ", ".join(f"{key}={value}" for key, value in sorted(self.policy.items()))

    @property
    def transports(self) -> dict[str, str]:
        """The transports of the run by key: `front_transport` and `upstream_transport` (a gateway),
        `client_transport` (a client), `http` where the report does not say (it predates them); {} for a capture."""
        return {key: getattr(self, key) or DEFAULT_TRANSPORT for key in _TRANSPORTS.get(self.kind, ())}

    @property
    def dialects(self) -> str | None:
        """The dialects of the run in a few words, with the transport where it is not HTTP: `chat front, responses
        upstream` (a gateway), `responses front over WebSocket, chat upstream`, `chat client`; None for a capture,
        or a report from before these were recorded."""
        said = {key: _said(value) for key, value in self.transports.items()}
        if self.kind == "gateway" and (self.front or self.upstream_dialect):
            return (f"{self.front or 'responses'} front{said['front_transport']}, "
                    f"{self.upstream_dialect or 'chat'} upstream{said['upstream_transport']}")
        if self.kind == "client":
            return f"{self.client_dialect or 'responses'} client{said['client_transport']}"
        return None

    @property
    def named(self) -> str | None:
        """The command, URL, app or client the target was given as (the first the report holds)."""
        return next((v for v in (self.command, self.url, self.app, self.client) if v is not None), None)

    @property
    def label(self) -> str:
        """How a page names the implementation: the command, URL, app or client, else how it was given."""
        return next((v for v in (self.command, self.url, self.app, self.client) if v), None) or self.how or self.kind


@dataclass(frozen=True, slots=True)
class Platform:
    """Where the run ran."""

    python: str
    system: str
    machine: str
    extra: Mapping[str, JSONValue] | None = None

    @classmethod
    def current(cls) -> Platform:
        return cls(sys.version.split()[0], platform.system(), platform.machine())

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Platform:
        extra = _extra(data, ("python", "system", "machine"))
        return cls(data["python"], data["system"], data["machine"], extra or None)

    def to_json(self) -> dict[str, JSONValue]:
        return {"python": self.python, "system": self.system, "machine": self.machine, **(self.extra or {})}
