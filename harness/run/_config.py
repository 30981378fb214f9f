"""The configuration of a run: the implementation under test and how to reach it, from the command line or the
pytest options."""

from __future__ import annotations

import argparse
import secrets
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from callproof.harness._credentials import is_credential_name
from callproof.harness._errors import CallproofError
from callproof.harness._options import CLIENT_TRANSPORTS, IUT_OPTIONS, OPTIONS, policy_pair, policy_values
from callproof.harness._types import DIALECTS, FRONT_PATHS, Dialect
from callproof.harness.catalogue import PROFILES, Profile
from callproof.harness.request import DEFAULT_MODEL
from callproof.harness.transports import DEFAULT_TRANSPORT, transport

from ._templates import placeholders, template_problem

__all__ = ["ConfigError", "Dialect", "Mode", "RunConfig"]

Mode = Literal["gateway", "client"]


#: The RunConfig fields naming the implementation under test, from the option table.
_IUT: tuple[str, ...] = tuple(o.name for o in IUT_OPTIONS)


class ConfigError(CallproofError):
    """The options do not make a run; the message names them by their command-line flags."""


def new_credential() -> str:
    """The random part of a run's own front credential: 32 URL-safe characters, new each run."""
    return secrets.token_urlsafe(24)


@dataclass(frozen=True, slots=True)
class RunConfig:
    """Everything a run needs, from the command line or pytest options (docs/spec/contracts.md §4)."""

    launch: str | None = None
    target: str | None = None
    app: str | None = None
    client_cmd: str | None = None
    client: str | None = None
    front: Dialect = "responses"
    upstream_dialect: Dialect = "chat"
    client_dialect: Dialect = "responses"
    #: `--client-transport`, `--front-transport`, `--upstream-transport`: names of the transport table
    #: (callproof.harness.transports): how the client reaches the mock, the harness the gateway's front, the gateway
    #: the mock (given the URL in the transport's scheme); each row says the dialects it carries.
    client_transport: str = DEFAULT_TRANSPORT
    front_transport: str = DEFAULT_TRANSPORT
    upstream_transport: str = DEFAULT_TRANSPORT
    #: None: the front's standard path on the launched gateway's port (`front_template`).
    front_url: str | None = None
    ready_url: str | None = None
    case_timeout: float = 30.0
    start_timeout: float = 30.0
    model: str = DEFAULT_MODEL
    scenario_paths: tuple[Path, ...] = ()
    profile: Profile = "openai"
    mock_port: int = 0
    #: `--repeat N`: each case judged on N independent runs of its scenario (flaky when they disagree).
    repeat: int = 1
    cwd: Path | None = None
    #: `--header NAME:VALUE`: sent with every request to the IUT's front.
    headers: tuple[str, ...] = ()
    #: `--policy KEY=VALUE` as given (`policies` has every key's value, defaults filled in).
    policy: tuple[str, ...] = ()
    #: `--max-events N` / `--max-bytes N`: a case whose answer exceeds either fails, and is read no further.
    max_events: int | None = None
    max_bytes: int | None = None
    #: The random part of the run's own front credential (`front_credential`), new each run so that no gateway can
    #: allow for it; never shown (not in repr, reports or repro commands: a repro run makes its own).
    credential: str = field(default_factory=new_credential, repr=False, compare=False)

    @classmethod
    def from_options(cls, value: Callable[[str], Any], cwd: Path) -> RunConfig | None:
        """The configuration from option values (argparse's or pytest's), read by their names in the option table
        (`harness/_options.py`); None when no implementation under test is named. Relative scenario paths are
        resolved against `cwd`. Raises `ConfigError` when the options do not make a run."""
        if not any(value(o.name) for o in IUT_OPTIONS):
            return None
        fields: dict[str, Any] = {}
        for entry in OPTIONS:
            if entry.field is None:
                continue
            given = value(entry.name)
            fields[entry.field] = entry.default if given is None else given
        if fields["profile"] not in PROFILES:
            raise ConfigError(f"--profile {fields['profile']!r} is not a profile; use one of {', '.join(PROFILES)}")
        for name in ("front", "upstream_dialect", "client_dialect"):
            if fields[name] not in DIALECTS:
                flag = "--" + name.replace("_", "-")
                raise ConfigError(f"{flag} {fields[name]!r} is not a dialect; use one of {', '.join(DIALECTS)}")
        fields["scenario_paths"] = tuple(cwd / p for p in fields["scenario_paths"] or ())  # absolute paths stay
        fields["case_timeout"] = float(fields["case_timeout"])
        fields["start_timeout"] = float(fields["start_timeout"])
        fields["mock_port"] = int(fields["mock_port"])
        fields["repeat"] = int(fields["repeat"])
        fields["headers"] = tuple(fields["headers"] or ())
        fields["policy"] = tuple(fields["policy"] or ())
        for name in ("max_events", "max_bytes"):
            fields[name] = None if fields[name] is None else int(fields[name])
        config = cls(**fields)
        problem = config.problem()
        if problem is not None:
            raise ConfigError(problem)
        return config

    @property
    def mode(self) -> Mode:
        return "client" if (self.client_cmd or self.client) else "gateway"

    def problem(self) -> str | None:
        """Why this configuration cannot run, or None."""
        given = [n for n in _IUT if getattr(self, n)]
        if not given:
            return ("no implementation under test: give one of --launch 'CMD {upstream} {port}', --target URL, "
                    "--app module:attr, --client-cmd CMD or --client module:function")
        if len(given) > 1:
            flags = ", ".join("--" + n.replace("_", "-") for n in given)
            return f"{flags} name several implementations under test; give exactly one"
        if self.target and not self.mock_port:
            return ("--target needs --mock-port PORT: the gateway you started must already point at the mock's URL, "
                    "http://127.0.0.1:PORT/v1")
        if self.repeat < 1:
            return f"--repeat must be a whole number of at least 1, got {self.repeat}"
        for name in ("max_events", "max_bytes"):
            limit = getattr(self, name)
            if limit is not None and limit < 1:
                return f"--{name.replace('_', '-')} must be a whole number of at least 1, got {limit}"
            if limit is not None and self.mode == "client":
                return (f"--{name.replace('_', '-')} limits a gateway's answer; in a client run the mock writes the "
                        "stream and the adapter prints one result, so there is nothing to limit: drop it")
        client = self._transport_problem("--client-transport", self.client_transport, "client", "--client-dialect",
                                         self.client_dialect,
                                         "says how a client under test reaches the mock; give --client-cmd or "
                                         "--client, or drop it")
        if client is not None:
            return client
        transports = self.transport_problem()
        if transports is not None:
            return transports
        for pair in self.policy:
            try:
                policy_pair(pair)
            except argparse.ArgumentTypeError as exc:
                return f"--policy {pair}: {exc}"
        for name in ("case_timeout", "start_timeout"):
            if not 0 < getattr(self, name) < float("inf"):
                return f"--{name.replace('_', '-')} must be a positive number of seconds, got {getattr(self, name):g}"
        templates = template_problem(self.launch, self.front_url, self.ready_url)
        if templates is not None:
            return templates
        if self.launch and "port" not in placeholders(self.launch) and "port" in placeholders(self.front_template):
            return ("--launch has no {port} placeholder, so callproof cannot know where the gateway listens: add "
                    "{port} to the command (e.g. --port {port}), or give --front-url with the fixed port it listens on "
                    f"(e.g. --front-url {self.front_template.replace('{port}', '8080')})")
        return None

    def transport_problem(self) -> str | None:
        """Why --front-transport / --upstream-transport cannot be used in this run, or None."""
        for flag, value, dialect_flag, dialect in (
                ("--front-transport", self.front_transport, "--front", self.front),
                ("--upstream-transport", self.upstream_transport, "--upstream-dialect", self.upstream_dialect)):
            problem = self._transport_problem(flag, value, "gateway", dialect_flag, dialect,
                                              "says how a gateway under test is reached; a client run has none: "
                                              "drop it")
            if problem is not None:
                return problem
        return None

    def _transport_problem(self, flag: str, value: str, mode: Mode, dialect_flag: str, dialect: Dialect,
                           elsewhere: str) -> str | None:
        """Why the transport `value` of `flag` cannot be used in this run (its row of the transport table), or None:
        not a transport, given in the other mode (`elsewhere` says why), or one `dialect` has not."""
        if value == DEFAULT_TRANSPORT:
            return None
        if value not in CLIENT_TRANSPORTS:
            return f"{flag} {value!r} is not a transport; use one of {', '.join(CLIENT_TRANSPORTS)}"
        if self.mode != mode:
            return f"{flag} {value} {elsewhere}"
        spec = transport(value)
        if not spec.carries(dialect):
            carried = " or ".join(sorted(spec.dialects or ()))
            return (f"{flag} {value} is {spec.summary}; {dialect_flag} {dialect} has none: use {dialect_flag} "
                    f"{carried}, or drop {flag}")
        return None

    @property
    def policies(self) -> dict[str, str]:
        """Every run policy's value (docs/cli.md#policies): the default unless `--policy` set it."""
        return policy_values(self.policy)

    @property
    def front_credential(self) -> tuple[str, str]:
        """The run's own credential as the pinned SDKs send a key (docs/cli.md#the-runs-own-credential): openai-python
        and anthropic-sdk-python both send `Authorization: Bearer <key>`; the key looks like one of the front's
        dialect, `sk-callproof-...` or (Anthropic) `sk-ant-callproof-...`."""
        prefix = DIALECTS[self.front].key_prefix
        return "authorization", f"Bearer {prefix}{self.credential}"

    @property
    def front_headers(self) -> dict[str, str]:
        """The headers of every front request: the run's own credential (`front_credential`) unless a `--header`
        names a credential, then the `--header` values by name (a repeated name: the last one); `--header NAME:`
        with no value sends no NAME (as curl's `-H 'NAME:'`), so `--header Authorization:` sends no credential."""
        given = {name: value for name, _, value in (header.partition(":") for header in self.headers)}
        own = [] if any(is_credential_name(name) for name in given) else [self.front_credential]
        return {name: value for name, value in [*own, *given.items()] if value}

    @property
    def front_template(self) -> str:
        """Where a launched or in-process gateway serves its front: --front-url, else the front's standard path."""
        return self.front_url or f"http://127.0.0.1:{{port}}{FRONT_PATHS[self.front]}"

    def run_args(self) -> list[str]:
        """The `callproof run` flags that make this configuration, shell-quoted, from the option table: every option
        that fills a field (the IUT, dialect, URL templates, timeouts, model, mock port, scenario files, profile) and
        differs from its default. A new option in the table is carried without a change here."""
        args: list[str] = []
        for entry in OPTIONS:
            if entry.field is None or "run" not in entry.surfaces:
                continue
            value = getattr(self, entry.field)
            values = list(value) if entry.kind == "many" else [] if value is None or value == entry.default else [value]
            if entry.shown is not None:  # secrets masked (--header)
                values = [entry.shown(str(v)) for v in values]
            if values:
                args += [entry.cli_flags[0], *(shlex.quote(f"{v:g}" if isinstance(v, float) else str(v))
                                               for v in values)]
        return args

    def repro(self, case_id: str) -> str:
        """The command that runs one case again as this run ran it (scenario files by absolute path)."""
        return " ".join(["callproof", "run", *self.run_args(), "-k", f"'{case_id}'"])  # ids hold no quote

    def target_option(self) -> str:
        """The option that names the IUT, shell-quoted, for repro commands."""
        for name in _IUT:
            value = getattr(self, name)
            if value:
                return f"--{name.replace('_', '-')} {shlex.quote(value)}"
        return ""

    def target_json(self) -> dict[str, Any]:
        kind = "client" if self.mode == "client" else "gateway"
        out: dict[str, Any] = {"kind": kind}
        for name in _IUT:
            value = getattr(self, name)
            if value:
                out[{"launch": "command", "target": "url", "client_cmd": "command"}.get(name, name)] = value
                out["how"] = name
        if kind == "gateway":
            out["front"] = self.front
            out["upstream_dialect"] = self.upstream_dialect
            out["front_transport"] = self.front_transport
            out["upstream_transport"] = self.upstream_transport
        else:
            out["client_dialect"] = self.client_dialect
            out["client_transport"] = self.client_transport
        out["policy"] = self.policies
        return out
