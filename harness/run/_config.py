"""The configuration of a run: the implementation under test and how to reach it, from the command line or the
pytest options."""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from callproof.harness._types import Dialect
from callproof.harness.catalogue import Profile
from callproof.harness.scenario import DEFAULT_MODEL

__all__ = ["Dialect", "Mode", "RunConfig"]

Mode = Literal["gateway", "client"]


@dataclass(frozen=True, slots=True)
class RunConfig:
    """Everything a run needs, from the command line or pytest options (docs/spec/contracts.md §4)."""

    launch: str | None = None
    target: str | None = None
    app: str | None = None
    client_cmd: str | None = None
    client: str | None = None
    upstream_dialect: Dialect = "chat"
    front_url: str = "http://127.0.0.1:{port}/v1/responses"
    ready_url: str | None = None
    case_timeout: float = 30.0
    start_timeout: float = 30.0
    model: str = DEFAULT_MODEL
    scenario_paths: tuple[Path, ...] = ()
    profile: Profile = "openai"
    mock_port: int = 0
    cwd: Path | None = None

    @property
    def mode(self) -> Mode:
        return "client" if (self.client_cmd or self.client) else "gateway"

    def problem(self) -> str | None:
        """Why this configuration cannot run, or None."""
        given = [n for n in ("launch", "target", "app", "client_cmd", "client") if getattr(self, n)]
        if not given:
            return ("no implementation under test: give one of --launch 'CMD {upstream} {port}', --target URL, "
                    "--app module:attr, --client-cmd CMD or --client module:function")
        if len(given) > 1:
            flags = ", ".join("--" + n.replace("_", "-") for n in given)
            return f"{flags} name several implementations under test; give exactly one"
        if self.target and not self.mock_port:
            return ("--target needs --mock-port PORT: the gateway you started must already point at the mock's URL, "
                    "http://127.0.0.1:PORT/v1")
        if self.case_timeout <= 0:
            return f"--case-timeout must be positive, got {self.case_timeout:g}"
        return None

    def target_option(self) -> str:
        """The option that names the IUT, shell-quoted, for repro commands."""
        for name in ("launch", "target", "app", "client_cmd", "client"):
            value = getattr(self, name)
            if value:
                return f"--{name.replace('_', '-')} {shlex.quote(value)}"
        return ""

    def target_json(self) -> dict[str, Any]:
        kind = "client" if self.mode == "client" else "gateway"
        out: dict[str, Any] = {"kind": kind}
        for name in ("launch", "target", "app", "client_cmd", "client"):
            value = getattr(self, name)
            if value:
                out[{"launch": "command", "target": "url", "client_cmd": "command"}.get(name, name)] = value
                out["how"] = name
        if kind == "gateway":
            out["upstream_dialect"] = self.upstream_dialect
        return out
