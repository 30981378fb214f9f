"""The data file of the real gateways (interop/gateways.json), read and checked against its JSON Schema
(interop/gateways.schema.json) into frozen dataclasses: a gateway, its pinned release, and the modes it serves."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema

__all__ = ["DATA", "SCHEMA", "Gateway", "Mode", "SpecError", "Unsupported", "load"]

HERE = Path(__file__).resolve().parent
#: The bundled data file and its schema.
DATA = HERE / "gateways.json"
SCHEMA = HERE / "gateways.schema.json"


class SpecError(ValueError):
    """A data file that cannot be read or does not match its schema; the message names the file, path and fix."""


@dataclass(frozen=True)
class Mode:
    """One front x upstream (x front transport) pairing a gateway serves, and how to launch it so."""

    front: str
    upstream: str
    launch: str
    front_transport: str = "http"
    env: tuple[tuple[str, str], ...] = ()
    files: tuple[tuple[str, str], ...] = ()
    args: tuple[str, ...] = ()
    note: str = ""

    @property
    def id(self) -> str:
        """`<front>-<upstream>`, `-ws` added for a WebSocket front: the report's and the baseline's name."""
        return f"{self.front}-{self.upstream}" + ("-ws" if self.front_transport == "websocket" else "")


@dataclass(frozen=True)
class Unsupported:
    """A mode the gateway cannot serve, and why (a docs row)."""

    mode: str
    why: str


@dataclass(frozen=True)
class Gateway:
    """A real gateway at a pinned release: what to install, its environment and files, its modes."""

    name: str
    title: str
    version: str
    distribution: str
    pip: tuple[str, ...]
    modes: tuple[Mode, ...]
    env: tuple[tuple[str, str], ...] = ()
    files: tuple[tuple[str, str], ...] = ()
    start_timeout: float = 60.0
    case_timeout: float = 30.0
    unsupported: tuple[Unsupported, ...] = ()

    def mode(self, mode_id: str) -> Mode:
        """The mode of that id; `KeyError` naming the ones there are."""
        for mode in self.modes:
            if mode.id == mode_id:
                return mode
        raise KeyError(f"{self.name} has no mode {mode_id!r}; it has {', '.join(m.id for m in self.modes) or 'none'}")

    def env_for(self, mode: Mode) -> dict[str, str]:
        """The gateway's environment templates, the mode's over them."""
        return {**dict(self.env), **dict(mode.env)}

    def files_for(self, mode: Mode) -> dict[str, str]:
        """The gateway's file templates, the mode's over them (in order: the first is `{config}`)."""
        return {**dict(self.files), **dict(mode.files)}


def _pairs(obj: dict[str, Any], key: str) -> tuple[tuple[str, str], ...]:
    return tuple((str(k), str(v)) for k, v in obj.get(key, {}).items())


def _mode(obj: dict[str, Any]) -> Mode:
    return Mode(front=obj["front"], upstream=obj["upstream"], launch=obj["launch"],
                front_transport=obj.get("front_transport", "http"), env=_pairs(obj, "env"),
                files=_pairs(obj, "files"), args=tuple(obj.get("args", ())), note=obj.get("note", ""))


def _gateway(obj: dict[str, Any]) -> Gateway:
    return Gateway(
        name=obj["name"], title=obj["title"], version=obj["version"], distribution=obj["distribution"],
        pip=tuple(obj["pip"]), modes=tuple(_mode(m) for m in obj["modes"]), env=_pairs(obj, "env"),
        files=_pairs(obj, "files"), start_timeout=float(obj.get("start_timeout", 60.0)),
        case_timeout=float(obj.get("case_timeout", 30.0)),
        unsupported=tuple(Unsupported(u["mode"], u["why"]) for u in obj.get("unsupported", ())),
    )


def load(path: Path = DATA) -> tuple[Gateway, ...]:
    """The gateways of `path`, checked against the schema; `SpecError` on a file that is not valid, or on a name or
    mode id given twice."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise SpecError(f"{path}: cannot be read as JSON ({exc}); fix the file") from None
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(schema).iter_errors(data))
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "(top)"
        raise SpecError(f"{path}: at {where}: {error.message}; see {SCHEMA.name}")
    gateways = tuple(_gateway(g) for g in data["gateways"])
    names = [g.name for g in gateways]
    if len(set(names)) != len(names):
        raise SpecError(f"{path}: a gateway name is given twice ({names}); names must be unique")
    for gateway in gateways:
        ids = [m.id for m in gateway.modes]
        if len(set(ids)) != len(ids):
            raise SpecError(f"{path}: {gateway.name} lists a mode twice ({ids}); one entry per front x upstream")
    return gateways
