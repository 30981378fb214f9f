"""Running an implementation under test: the run's configuration, launching or reaching the IUT, HTTP
exchanges, client adapters, and the harness that plans, runs and judges the cases."""

from __future__ import annotations

from ._client import ClientAdapter, CommandClient, InProcessClient
from ._config import ConfigError, Dialect, Mode, RunConfig
from ._groups import CLIENT_GROUPS, GATEWAY_GROUPS
from ._harness import NO_ANSWER, Harness, run_scenarios
from ._http_exchange import exchange
from ._iut import AppIUT, Gateway, IUTError, LaunchedIUT, TargetIUT, free_port
from ._keyword import closest_cases, keyword_selects
from ._preflight import Preflight, output_problem, preflight, setup_problem, workers_problem
from ._reporting import build_report, case_of, scenario_set_hash
from ._shard import case_durations, selection_digest, shard_cases
from ._stop import interrupted_by, interruptible, iut_groups, request_stop, stop_requested

__all__ = [
    "AppIUT",
    "CLIENT_GROUPS",
    "ClientAdapter",
    "CommandClient",
    "ConfigError",
    "Dialect",
    "GATEWAY_GROUPS",
    "Gateway",
    "Harness",
    "IUTError",
    "InProcessClient",
    "LaunchedIUT",
    "Mode",
    "NO_ANSWER",
    "Preflight",
    "RunConfig",
    "TargetIUT",
    "build_report",
    "case_durations",
    "case_of",
    "closest_cases",
    "exchange",
    "free_port",
    "interrupted_by",
    "interruptible",
    "iut_groups",
    "keyword_selects",
    "output_problem",
    "preflight",
    "request_stop",
    "run_scenarios",
    "scenario_set_hash",
    "selection_digest",
    "setup_problem",
    "shard_cases",
    "stop_requested",
    "workers_problem",
]
