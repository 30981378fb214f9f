"""Running an implementation under test: the run's configuration, launching or reaching the IUT, HTTP
exchanges, client adapters, and the harness that plans, runs and judges the cases."""

from __future__ import annotations

from ._client import ClientAdapter, CommandClient, InProcessClient
from ._config import ConfigError, Dialect, Mode, RunConfig
from ._groups import CLIENT_GROUPS, GATEWAY_GROUPS
from ._harness import Harness, run_scenarios
from ._http_exchange import exchange
from ._iut import AppIUT, Gateway, IUTError, LaunchedIUT, TargetIUT, free_port
from ._preflight import output_problem, setup_problem, workers_problem
from ._reporting import build_report, case_of, scenario_set_hash
from ._stop import interrupted_by, interruptible, iut_groups

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
    "RunConfig",
    "TargetIUT",
    "build_report",
    "case_of",
    "exchange",
    "free_port",
    "interrupted_by",
    "interruptible",
    "iut_groups",
    "output_problem",
    "run_scenarios",
    "scenario_set_hash",
    "setup_problem",
    "workers_problem",
]
