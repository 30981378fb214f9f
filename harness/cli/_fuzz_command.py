"""`callproof fuzz`: generate scenarios against a gateway or client and shrink a failure to a scenario file
(harness/fuzz does the work; this is the command line)."""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from callproof.harness._doc_refs import terminal_refs
from callproof.harness.run import ConfigError, IUTError

from ._exit import ExitCode
from ._flags import add_options
from ._outputs import refuse_outputs
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

    refused = refuse_outputs("fuzz", folders=[("--out", args.out)])  # before any example: a finding needs it
    if refused is not None:
        return refused
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
    problem = _write(path, text)
    calls = sum(o["type"] == "function_call" for o in failure.scenario["output"])
    print(f"callproof fuzz: failure found after {outcome.examples} examples ({outcome.found_after:.1f} s); shrunk in "
          f"{outcome.shrink_runs} runs to {len(failure.scenario['output'])} output item(s), {calls} call(s) "
          f"({outcome.seconds:.1f} s in all, seed {outcome.seed})")
    print(f"  rule:     {failure.rule}" + (f" (also {', '.join(failure.also)})" if failure.also else ""))
    print(f"  case:     {failure.case}")
    print(f"  message:  {terminal_refs(failure.message)}")
    print(f"  scenario: {path}" + (" (not written: it follows on standard error)" if problem else ""))
    replay = " ".join(options.config.run_args())
    print(f"  replay:   callproof run {replay} --scenarios {path} -k {failure.scenario['id']}", flush=True)
    if problem is not None:  # the finding is not lost: its file goes to standard error, to be saved by hand
        print(f"callproof fuzz: cannot write {path} ({problem}); save the scenario below as {path} to replay it "
              f"(or give another --out)\n{text}", file=sys.stderr)
    if not outcome.replayed:
        print("callproof fuzz: warning: the shrunk scenario passed when replayed once: the IUT's verdict on it is "
              "not deterministic", file=sys.stderr)
    return ExitCode.FAILED


def _write(path: Path, text: str) -> str | None:
    """Write the failure's scenario file; why it could not be written (--out was checked up front, but may have gone
    since), or None."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        return exc.strerror or str(exc)
    return None
