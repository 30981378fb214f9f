"""What a report says it tested and where: the implementation under test (`Target`) and the platform the run ran
on (`Platform`), as the report's `target` and `platform` objects hold them."""

from __future__ import annotations

import platform
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from callproof.harness._types import Dialect, JSONValue

__all__ = ["Platform", "Target"]


def _extra(data: Mapping[str, Any], known: Iterable[str]) -> dict[str, JSONValue]:
    """The keys of an open JSON object the model has no field for: kept, so `to_json` gives them back."""
    names = set(known)
    return {k: v for k, v in data.items() if k not in names}


_TARGET = ("kind", "command", "url", "app", "client", "how", "front", "upstream_dialect", "client_dialect", "policy")


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
    #: The run policies (`--policy KEY=VALUE`, docs/cli.md#policies), every key with its value; None in reports
    #: from before they were recorded.
    policy: Mapping[str, str] | None = None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Target:
        policy = data.get("policy")
        return cls(data["kind"], data["how"], data.get("command"), data.get("url"), data.get("app"),
                   data.get("client"), data.get("upstream_dialect"), data.get("front"), data.get("client_dialect"),
                   _extra(data, _TARGET) or None, dict(policy) if isinstance(policy, Mapping) else None)

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
    def dialects(self) -> str | None:
        """The dialects of the run in a few words: `chat front, responses upstream` (a gateway), `chat client`;
        None for a capture, or a report from before these were recorded."""
        if self.kind == "gateway" and (self.front or self.upstream_dialect):
            return f"{self.front or 'responses'} front, {self.upstream_dialect or 'chat'} upstream"
        if self.kind == "client":
            return f"{self.client_dialect or 'responses'} client"
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
