"""The launch step of one gateway mode, run by callproof's `--launch` with the mock's URL and the port it picked:
render the mode's files into a folder of their own, build the environment (offline defaults, the gateway's, the
mode's), and replace this process with the gateway's command (split as a shell would, run without one). callproof
stops the process group when the run ends, so nothing outlives it."""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass
from pathlib import Path

from ._spec import Gateway, Mode
from ._template import fill

__all__ = ["OFFLINE_ENV", "Launch", "prepare"]

#: Set for every gateway: dummy keys (the mock checks none), no proxy for the loopback, no telemetry, no hub or
#: update checks. A gateway's own `env` adds its switches (docs/interop.md: real gateways).
OFFLINE_ENV: dict[str, str] = {
    "OPENAI_API_KEY": "sk-callproof",
    "ANTHROPIC_API_KEY": "sk-ant-callproof",
    "NO_PROXY": "127.0.0.1,localhost",
    "no_proxy": "127.0.0.1,localhost",
    "DO_NOT_TRACK": "1",
    "HF_HUB_OFFLINE": "1",
    "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    "PYTHONUNBUFFERED": "1",
}


@dataclass(frozen=True)
class Launch:
    """A mode's command and environment, its files rendered."""

    argv: tuple[str, ...]
    env: dict[str, str]
    files: Path


def prepare(gateway: Gateway, mode: Mode, *, upstream: str, upstream_root: str, port: str, venv: Path, root: Path,
            work: Path) -> Launch:
    """Render the mode's files into `work/<name>-<mode>-<port>/` and fill its command and environment."""
    files_dir = work / f"{gateway.name}-{mode.id}-{port}"
    files_dir.mkdir(parents=True, exist_ok=True)
    templates = gateway.files_for(mode)
    values = {"port": port, "upstream": upstream, "upstream_root": upstream_root, "venv": str(venv),
              "root": str(root), "files": str(files_dir),
              "config": str(files_dir / next(iter(templates))) if templates else ""}
    for name, text in templates.items():
        (files_dir / name).write_text(fill(text, values), encoding="utf-8")
    env = {**os.environ, **OFFLINE_ENV, **{k: fill(v, values) for k, v in gateway.env_for(mode).items()}}
    argv = tuple(shlex.split(fill(mode.launch, values)))
    return Launch(argv=argv, env=env, files=files_dir)
