"""The options of a run, declared once: `callproof run` and `callproof fuzz` flags (argparse, harness/cli) and the
`--callproof-*` pytest options (harness/plugin) are generated from `OPTIONS`, and `RunConfig.from_options` reads
the ones that fill a `RunConfig` field from either.

A table entry is named by its `RunConfig`-style identifier (`client_cmd`): the command line spells it `--client-cmd`
(or its own `flags`), pytest `--callproof-client-cmd` with dest `callproof_client_cmd`. This module is data only:
the pytest plugin imports it on start-up, so it loads nothing of the runner. The report-format flags of `callproof
run` (`--md OUT.md`, ...) are made from the format registry, `callproof.reports.FORMATS`: that loads the renderers
(about 15 ms on top of the plugin's start-up), still nothing of the runner.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from callproof.harness._option_types import (
    header_pair,
    non_negative_int,
    port_number,
    positive_float,
    positive_int,
    redact_argv,
    shard_durations,
    shard_spec,
    shown_header,
)
from callproof.harness._types import DIALECTS
from callproof.harness.catalogue import PROFILES
from callproof.harness.request import DEFAULT_MODEL
from callproof.harness.transports import TransportChoices
from callproof.reports import FORMATS as REPORT_FORMATS
from callproof.reports import ReportFormat, run_formats

__all__ = [
    "CLIENT_TRANSPORTS",
    "IUT_OPTIONS",
    "OPTIONS",
    "POLICIES",
    "Kind",
    "Option",
    "Surface",
    "format_options",
    "header_pair",
    "non_negative_int",
    "option",
    "options_for",
    "policy_pair",
    "policy_values",
    "positive_float",
    "positive_int",
    "plugin_dest",
    "plugin_flag",
    "plugin_text",
    "port_number",
    "redact_argv",
    "shard_durations",
    "shard_spec",
    "shown_header",
]

#: The transports of `--client-transport`, `--front-transport`, `--upstream-transport`: the transport table's names,
#: read whenever they are read (callproof.harness.transports).
CLIENT_TRANSPORTS: Sequence[str] = TransportChoices()

#: Where an option is offered: `callproof run`, `callproof fuzz`, the pytest plugin.
Surface = Literal["run", "fuzz", "pytest"]
#: `value` takes one value; `many` one or more, repeatable (a list); `true` / `false` is a switch storing that.
Kind = Literal["value", "many", "true", "false"]

_RUN: frozenset[Surface] = frozenset({"run"})
_FUZZ: frozenset[Surface] = frozenset({"fuzz"})
_ALL: frozenset[Surface] = frozenset({"run", "fuzz", "pytest"})
_RUN_PYTEST: frozenset[Surface] = frozenset({"run", "pytest"})


#: The run policies (`--policy KEY=VALUE`): how the IUT chose to treat what the spec leaves to it, so the judge
#: expects that treatment. Each key's values, the default first (docs/cli.md#policies).
POLICIES: dict[str, tuple[str, ...]] = {
    # tool-call markup in upstream text (`<function=NAME>{json}</function>`, `<tool_call>{json}</tool_call>`):
    # passed on as text, or converted into real tool calls (GW-XML-001)
    "xml-tool-text": ("passthrough", "convert"),
    # previous_response_id, store and encrypted reasoning at a Responses front (docs/spec/stateful.md §5): honoured
    # or refused in the documented shape, either accepted by default; never silently dropped (GW-STATE-001..003)
    "stateful": ("either", "reject", "honor"),
    # a custom (free-form) tool toward an upstream without custom tools (Chat, Anthropic; docs/spec/items.md §2):
    # refused with a 4xx naming it, or offered as a function tool with one string parameter whose call goes back
    # to the front as a custom call with the raw input, either accepted by default (GW-REQ-012, GW-ITEM-001)
    "custom-tools": ("either", "refuse", "convert"),
}


def policy_pair(text: str) -> str:
    """A `KEY=VALUE` run policy (an argparse `type`), checked against `POLICIES`."""
    key, eq, value = text.partition("=")
    key, value = key.strip(), value.strip()
    if not eq or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE (e.g. xml-tool-text=convert), got {text!r}")
    if key not in POLICIES:
        raise argparse.ArgumentTypeError(f"unknown policy {key!r}; known: {', '.join(sorted(POLICIES))}")
    if value not in POLICIES[key]:
        raise argparse.ArgumentTypeError(f"policy {key} takes {' or '.join(POLICIES[key])}, got {value!r}")
    return f"{key}={value}"


def policy_values(pairs: Iterable[str]) -> dict[str, str]:
    """Every policy's value: the default, unless a `KEY=VALUE` pair (checked by `policy_pair`) sets it (the last
    one given wins)."""
    values = {key: choices[0] for key, choices in POLICIES.items()}
    for pair in pairs:
        key, _, value = policy_pair(pair).partition("=")
        values[key] = value
    return values


@dataclass(frozen=True, slots=True)
class Option:
    """One option of a run. `help` names other options by their command-line flags (`--mock-port`); pytest shows
    them as `--callproof-mock-port`. `pytest_default` differs from `default` only where pytest has no value of its
    own (`report`: none written unless asked); `ini` names the pytest ini setting that supplies the default when the
    option is not given (the effective default is still `default`)."""

    name: str
    help: str
    surfaces: frozenset[Surface]
    metavar: str | None = None
    type: Callable[[str], Any] | None = None
    default: object = None
    choices: Sequence[str] | None = None
    kind: Kind = "value"
    flags: tuple[str, ...] = ()
    iut: bool = False
    field: str | None = None
    pytest_default: object = None
    ini: str | None = None
    #: How a value is shown in repro commands (secrets masked); None: as it is.
    shown: Callable[[str], str] | None = None

    @property
    def cli_flags(self) -> tuple[str, ...]:
        """The command-line flags: `flags`, else `--<name>` with dashes."""
        return self.flags or (f"--{self.name.replace('_', '-')}",)


def _option(name: str, help: str, surfaces: frozenset[Surface], **kw: Any) -> Option:
    """An option filling the `RunConfig` field of its name when it is offered to pytest (as `run` passes it on)."""
    kw.setdefault("field", name)
    kw.setdefault("pytest_default", [] if kw.get("kind") == "many" else kw.get("default"))
    return Option(name, help, surfaces, **kw)


def format_options(formats: Iterable[ReportFormat]) -> tuple[Option, ...]:
    """The `callproof run` flag of each report format with a `run` entry (`--md OUT.md`), in the order of those
    entries: the options come from the format registry (callproof.reports.FORMATS), never a list of their own."""
    return tuple(Option(f.option, f.run.help, _RUN, metavar=f.metavar, type=Path)
                 for f in run_formats(formats) if f.run is not None)


#: Every option, in --help order. The IUT options are mutually exclusive: the commands require exactly one.
OPTIONS: tuple[Option, ...] = (
    _option("launch", "gateway command to start, with {upstream}, {upstream_root} and {port} placeholders "
            "(e.g. 'python gw.py --upstream {upstream} --port {port}')", _ALL, metavar="CMD", iut=True),
    _option("target", "front URL of a gateway already running (pointed at the mock on --mock-port)", _ALL,
            metavar="URL", iut=True),
    _option("app", "ASGI gateway app, served in-process on uvicorn", _ALL, metavar="MODULE:ATTR", iut=True),
    _option("client_cmd", "client adapter program (`callproof docs adapters`)", _ALL, metavar="CMD", iut=True),
    _option("client", "in-process client adapter function", _ALL, metavar="MODULE:FUNCTION", iut=True),
    _option("front", "dialect the gateway serves its callers, which the harness sends and judges (default "
            "responses)", _ALL, default="responses", choices=DIALECTS),
    _option("upstream_dialect", "dialect the mock serves the gateway as its upstream (default chat)", _ALL,
            default="chat", choices=DIALECTS),
    _option("client_dialect", "dialect the client under test speaks: its request on stdin and the mock endpoint it "
            "calls (default responses)", _ALL, default="responses", choices=DIALECTS),
    _option("client_transport", "how the client under test reaches the mock: http, or websocket (the Responses "
            "API's WebSocket mode; needs --client-dialect responses; `callproof docs adapters#over-websocket`) "
            "(default http)", _RUN_PYTEST, default="http", choices=CLIENT_TRANSPORTS),
    _option("front_transport", "how the harness reaches a gateway's front: http, or websocket (the Responses API's "
            "WebSocket mode on the front's path: each scenario over one socket, GW-WS rules; needs --front responses; "
            "`callproof docs gateway-websocket`) (default http)", _RUN_PYTEST, default="http",
            choices=CLIENT_TRANSPORTS),
    _option("upstream_transport", "how the gateway reaches the mock: http, or websocket ({upstream} is then the "
            "mock's ws:// URL with /v1, and the gateway speaks the Responses WebSocket mode to it; needs "
            "--upstream-dialect responses) (default http)", _RUN_PYTEST, default="http", choices=CLIENT_TRANSPORTS),
    _option("front_url", "where a launched gateway serves its front (default http://127.0.0.1:{port}/v1/responses, "
            "/v1/chat/completions or /v1/messages by --front)", _ALL, metavar="TEMPLATE"),
    _option("ready_url", "URL that answers 2xx once a launched gateway is ready (default: its port accepts)", _ALL,
            metavar="TEMPLATE"),
    _option("case_timeout", "seconds a case may take before the IUT counts as hung (default 30)", _ALL,
            metavar="S", type=positive_float, default=30.0),
    _option("start_timeout", "seconds a launched gateway may take to be ready (default 30)", _ALL, metavar="S",
            type=positive_float, default=30.0),
    _option("model", "model name sent to the IUT (scenario selection never depends on it)", _ALL, metavar="NAME",
            default=DEFAULT_MODEL),
    _option("header", "header sent with every request to the IUT's front, NAME:VALUE (e.g. 'Authorization: Bearer "
            "KEY'); one naming a credential replaces the run's own key, NAME: with no value sends no NAME; reports "
            "show secret-looking ones as NAME:***", _ALL, metavar="NAME:VALUE", type=header_pair,
            kind="many", field="headers", shown=shown_header),
    _option("mock_port", "port of the mock upstream (default: a free one; fix it with --target)", _ALL,
            metavar="PORT", type=port_number, default=0),
    Option("keyword", "only cases matching this pytest -k expression", _RUN, metavar="EXPR", flags=("-k",)),
    Option("list_cases", "print the ids of the cases this command line runs (after -k and --shard) and exit, "
           "starting nothing", _RUN, kind="true", default=False),
    Option("workers", "parallel workers (pytest-xdist; a number or auto)", _RUN, metavar="N", default="0",
           flags=("-n",)),
    _option("scenarios", "your scenario files or folders, besides the bundled corpus", _RUN_PYTEST, metavar="PATH",
            type=Path, kind="many", field="scenario_paths"),
    _option("profile", "rules and schema variant (default openai)", _ALL, choices=PROFILES, default="openai",
            pytest_default=None, ini="callproof_profile"),
    _option("repeat", "judge each case on N runs of its scenario; a verdict that differs between them is flaky "
            "(default 1)", _RUN_PYTEST, metavar="N", type=positive_int, default=1),
    _option("policy", "how the IUT treats what the spec leaves to it, KEY=VALUE, repeatable: xml-tool-text="
            "passthrough (default: tool-call markup in upstream text stays text) or convert (it becomes tool calls); "
            "stateful=either (default: previous_response_id honoured or refused with the documented 400), reject or "
            "honor; custom-tools=either (default: a custom tool toward Chat or Anthropic refused with a 4xx or "
            "converted to a function tool), refuse or convert (`callproof docs cli#policies`)", _RUN_PYTEST,
            metavar="KEY=VALUE", type=policy_pair, kind="many"),
    _option("max_events", "fail a case whose answer exceeds N events, and stop reading it (default: no limit)",
            _RUN_PYTEST, metavar="N", type=positive_int),
    _option("max_bytes", "fail a case whose answer exceeds N bytes, and stop reading it (default: no limit)",
            _RUN_PYTEST, metavar="N", type=positive_int),
    _option("shard", "run only shard I of N: a slice of whole scenarios, the same on every machine; merge the "
            "shards' reports with `callproof report --merge` (`callproof docs ci#shards`)", _RUN_PYTEST, metavar="I/N",
            type=shard_spec, field=None),
    _option("shard_durations", "balance the shards by the case durations of this earlier report (default: by "
            "case count)", _RUN_PYTEST, metavar="REPORT.json", type=shard_durations, field=None),
    _option("max_consecutive_errors", "stop the run (exit 1, reports written with what was judged) once N scenarios "
            "in a row got no answer at all: refused, reset, timed out with nothing received, or the IUT could not "
            "be started (default 5; 0: never stop)", _RUN_PYTEST, metavar="N", type=non_negative_int, default=5,
            field=None),
    _option("baseline", "known failures that do not fail the run (`callproof docs cli#baselines`)", _RUN_PYTEST,
            metavar="FILE", type=Path, field=None),
    _option("strict_baseline", "fail the run on stale baseline entries (listed failures that now pass), one line "
            "each naming the baseline file and line", _RUN_PYTEST, kind="true", default=False, field=None),
    Option("write_baseline", "write this run's failures as a baseline file (to adopt callproof on a gateway with "
           "bugs)", _RUN, metavar="FILE", type=Path),
    _option("report", "write the JSON report here (OUT.jsonl beside it is written as cases finish, and removed "
            "once the report is; an interrupted run keeps it); `callproof run` writes report.json unless told",
            _RUN_PYTEST, metavar="OUT.json", type=Path, default=Path("report.json"),
            field=None, pytest_default=None),
    *format_options(REPORT_FORMATS),  # --md OUT.md, ...: one per format of the registry that `run` writes
    Option("verbose", "one line per case", _RUN, kind="true", default=False, flags=("-v", "--verbose")),
    Option("max_examples", "scenarios to generate at most (default 100)", _FUZZ, metavar="N", type=positive_int,
           default=100),
    Option("time", "stop generating after this long (default 60; shrinking a failure goes on)", _FUZZ,
           metavar="SECONDS", type=positive_float, default=60.0),
    Option("seed", "replay the examples of an earlier run (default: a random seed, printed)", _FUZZ, metavar="N",
           type=int),
    Option("out", "folder for the scenario file of a failure (default: the current folder)", _FUZZ, metavar="DIR",
           type=Path, default=Path()),
    Option("quirks", "generate only upstream streams that follow their spec (no split names, missing ids, ...): "
           "for pass-through proxies", _FUZZ, kind="false", default=True, flags=("--no-quirks",)),
)

#: The options naming the implementation under test (give exactly one).
IUT_OPTIONS: tuple[Option, ...] = tuple(o for o in OPTIONS if o.iut)


def options_for(surface: Surface) -> tuple[Option, ...]:
    """The options one surface offers, in table order."""
    return tuple(o for o in OPTIONS if surface in o.surfaces)


def option(name: str) -> Option:
    """The table entry of this name."""
    for entry in OPTIONS:
        if entry.name == name:
            return entry
    raise KeyError(name)


def plugin_flag(entry: Option) -> str:
    return f"--callproof-{entry.name.replace('_', '-')}"


def plugin_dest(entry: Option) -> str:
    return f"callproof_{entry.name}"


_FLAG = re.compile(r"(?<![\w-])--([a-z][a-z-]*)")


def plugin_text(text: str) -> str:
    """A help text or message naming the options' command-line flags, with those flags spelled as pytest options
    (`--mock-port` becomes `--callproof-mock-port`; other flags, like a gateway's own `--port`, are left alone)."""
    names = {o.name for o in options_for("pytest")}

    def spell(match: re.Match[str]) -> str:
        name = match.group(1).replace("-", "_")
        return plugin_flag(option(name)) if name in names else match.group(0)

    return _FLAG.sub(spell, text)
