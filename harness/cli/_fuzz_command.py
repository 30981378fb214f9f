"""`callproof fuzz`: generate scenarios against a gateway or client and shrink a failure to a scenario file
(harness/fuzz does the work; this is the command line)."""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from callproof.harness.run import ConfigError, IUTError

from ._exit import ExitCode
from ._flags import add_options
from ._run_config import run_config

if TYPE_CHECKING:
    from callproof.harness.fuzz import FuzzOptions, FuzzOutcome

__all__ = ["add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Generate scenarios (chunk boundaries, interleavings, call ids, unicode, sizes) with hypothesis, run each "
        "through the rules of `callproof run`, and shrink the first failure to a minimal scenario file for "
        "--scenarios. Exit 0: no failure found; 1: a failure (file written); 2: usage or setup error."
    )
    add_options(parser, "fuzz")


def run(args: argparse.Namespace) -> int:
    """0 no failure found, 1 a failure (its scenario file written), 2 usage or setup error."""
    # start-up guard: hypothesis (and the fuzz floor) load only for this command
    from callproof.harness.fuzz import FuzzError, FuzzOptions, failure_file, fuzz

    if args.out.exists() and not args.out.is_dir():
        print(f"callproof fuzz: --out {args.out} is a file; give a folder", file=sys.stderr)
        return ExitCode.USAGE
    try:
        config = run_config(args)
    except ConfigError as exc:
        print(f"callproof fuzz: {exc}", file=sys.stderr)
        return ExitCode.USAGE
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    options = FuzzOptions(config, args.max_examples, args.time, seed, args.out, args.quirks)
    print(f"callproof fuzz: up to {options.max_examples} examples or {options.seconds:g} s, seed {options.seed}",
          flush=True)
    try:
        outcome = fuzz(options)
    except (IUTError, FuzzError) as exc:
        print(f"callproof fuzz: {exc}", file=sys.stderr)
        return ExitCode.USAGE
    return _report(outcome, options, failure_file(outcome.failure, options) if outcome.failure else None)


def _report(outcome: FuzzOutcome, options: FuzzOptions, written: tuple[Path, str] | None) -> int:
    if outcome.failure is None:
        print(f"callproof fuzz: no failure found in {outcome.examples} examples / {outcome.seconds:.1f} s "
              f"(seed {outcome.seed})")
        return ExitCode.OK
    failure = outcome.failure
    assert written is not None, "a failure has its file"
    path, text = written
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        print(f"callproof fuzz: cannot write {path}: {exc.strerror or exc}; choose another --out", file=sys.stderr)
        return ExitCode.USAGE
    calls = sum(o["type"] == "function_call" for o in failure.scenario["output"])
    print(f"callproof fuzz: failure found after {outcome.examples} examples ({outcome.found_after:.1f} s); shrunk in "
          f"{outcome.shrink_runs} runs to {len(failure.scenario['output'])} output item(s), {calls} call(s) "
          f"({outcome.seconds:.1f} s in all, seed {outcome.seed})")
    print(f"  rule:     {failure.rule}" + (f" (also {', '.join(failure.also)})" if failure.also else ""))
    print(f"  case:     {failure.case}")
    print(f"  message:  {failure.message}")
    print(f"  scenario: {path}")
    replay = " ".join(options.config.run_args())
    print(f"  replay:   callproof run {replay} --scenarios {path} -k {failure.scenario['id']}")
    if not outcome.replayed:
        print("callproof fuzz: warning: the shrunk scenario passed when replayed once: the IUT's verdict on it is "
              "not deterministic", file=sys.stderr)
    return ExitCode.FAILED
