"""The `RunConfig` of `callproof run` and `callproof fuzz`, from their parsed flags. Apart from `_flags` (which
defines the flags, for `--help` too) because it loads the runner."""

from __future__ import annotations

import argparse
from pathlib import Path

from callproof.harness.run import RunConfig

__all__ = ["run_config"]


def run_config(args: argparse.Namespace) -> RunConfig:
    """The run's configuration from the parsed flags. Raises `ConfigError`."""
    config = RunConfig.from_options(lambda name: getattr(args, name, None), Path.cwd())
    assert config is not None, "argparse requires one IUT flag"
    return config
