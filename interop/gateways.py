"""`python -m interop.gateways` (`make interop-gateways`): every real gateway of interop/gateways.json, installed at
its pinned release into a venv of its own (out/interop-gateways/venvs/<name>), run under callproof in each front x
upstream mode it serves, each against its baseline (examples/baselines/gateways/<name>-<mode>.txt); reports in
out/interop-gateways/, the results table in docs/interop.md (between its `gateways` markers). Every mode runs even
when one fails; the exit status is 1 when any mode failed outside its baseline or could not run, 2 on a usage
error (an unknown gateway or mode, a data file that is not valid, an install that failed).

    python -m interop.gateways                      # everything, then the docs table
    python -m interop.gateways --only litellm --mode responses-chat -k one_call --no-docs

`python -m interop.gateways exec NAME MODE ...` is the launch step callproof runs (interop/_launch.py)."""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ._docs import update_docs
from ._install import InstallError, ensure
from ._launch import prepare
from ._mode_run import ModeResult, Paths, run_mode, stop_all
from ._spec import DATA, Gateway, Mode, SpecError, load

__all__ = ["main"]

ROOT = Path(__file__).resolve().parents[1]


def _exec(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m interop.gateways exec",
                                     description="render a gateway mode's files and exec its command")
    parser.add_argument("name")
    parser.add_argument("mode")
    for flag in ("--data", "--venv", "--work", "--root", "--upstream", "--upstream-root", "--port"):
        parser.add_argument(flag, required=True)
    args = parser.parse_args(argv)
    gateway = {g.name: g for g in load(Path(args.data))}[args.name]
    launch = prepare(gateway, gateway.mode(args.mode), upstream=args.upstream, upstream_root=args.upstream_root,
                     port=args.port, venv=Path(args.venv), root=Path(args.root), work=Path(args.work))
    os.execvpe(launch.argv[0], list(launch.argv), launch.env)  # replaces this process: callproof stops its group


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m interop.gateways", description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA, help="the data file (default interop/gateways.json)")
    parser.add_argument("--only", action="append", metavar="NAME", help="only this gateway (repeatable)")
    parser.add_argument("--mode", action="append", metavar="F-U", help="only this mode, e.g. responses-chat")
    parser.add_argument("-k", dest="keyword", metavar="EXPR", help="callproof run -k: only these cases")
    parser.add_argument("-n", dest="workers", type=int, default=2, help="callproof run -n (default 2)")
    parser.add_argument("--jobs", type=int, default=1, help="modes run at once (default 1)")
    parser.add_argument("--mode-timeout", type=float, default=3600.0, help="seconds one mode's run may take")
    parser.add_argument("--no-install", action="store_true", help="use the venvs as they are (no pip)")
    parser.add_argument("--out", type=Path, default=ROOT / "out" / "interop-gateways", help="reports, logs, venvs")
    parser.add_argument("--venvs", type=Path, help="the gateways' venvs (default <out>/venvs)")
    parser.add_argument("--baselines", type=Path, default=ROOT / "examples" / "baselines" / "gateways")
    parser.add_argument("--docs", type=Path, default=ROOT / "docs" / "interop.md",
                        help="the file whose gateways section is rewritten")
    parser.add_argument("--no-docs", action="store_true", help="leave the docs alone")
    parser.add_argument("--docs-only", action="store_true",
                        help="run nothing: rewrite the docs table from the reports already in --out")
    parser.add_argument("--callproof", type=Path, default=Path(sys.executable).parent / "callproof",
                        help="the callproof command (default: beside this Python)")
    return parser


def _selected(gateways: Sequence[Gateway], only: Sequence[str] | None,
              modes: Sequence[str] | None) -> list[tuple[Gateway, Mode]]:
    names = {g.name for g in gateways}
    unknown = sorted(set(only or ()) - names)
    if unknown:
        raise SpecError(f"--only {', '.join(unknown)}: no such gateway; there are {', '.join(sorted(names))}")
    chosen = [(g, m) for g in gateways if not only or g.name in only for m in g.modes if not modes or m.id in modes]
    if not chosen:
        raise SpecError(f"no mode selected by --only {only} --mode {modes}")
    return chosen


def _line(result: ModeResult) -> str:
    counts = result.counts
    tally = (f"{counts.get('cases', 0)} cases: {counts.get('passed', 0)} passed, {counts.get('failed', 0)} failed, "
             f"{counts.get('xfailed', 0)} in the baseline, {counts.get('error', 0)} errors") if counts else ""
    verdict = "ok" if result.ok else "FAILED outside its baseline" if not result.problem else "could not run"
    return (f"interop-gateways: {result.gateway} {result.version} {result.mode}: {verdict}"
            + (f"; {tally}" if tally else "") + (f"; {result.problem}" if result.problem else ""))


def _interrupted(signum: int, _frame: object) -> None:
    stop_all()
    print(f"interop-gateways: interrupted ({signal.Signals(signum).name}); the runs under way were stopped",
          file=sys.stderr, flush=True)
    os._exit(3)  # the worker threads still wait on their (stopped) runs


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["exec"]:
        return _exec(argv[1:])
    args = _parser().parse_args(argv)
    try:
        gateways = load(args.data)
        chosen = _selected(gateways, args.only, args.mode)
    except SpecError as exc:
        print(f"interop-gateways: {exc}", file=sys.stderr)
        return 2
    paths = Paths(root=ROOT, data=args.data.resolve(), out=args.out.resolve(), baselines=args.baselines.resolve(),
                  callproof=args.callproof, venv_root=args.venvs.resolve() if args.venvs else None)
    if args.docs_only:
        update_docs(args.docs, gateways, [], paths)
        print(f"interop-gateways: {args.docs} rewritten from the reports in {paths.out}", flush=True)
        return 0
    versions: dict[str, str] = {}
    for gateway in {g.name: g for g, _ in chosen}.values():
        try:
            versions[gateway.name] = gateway.version if args.no_install else ensure(gateway, paths.venv(gateway))
        except InstallError as exc:
            print(f"interop-gateways: {exc}", file=sys.stderr)
            return 2
        where = f"in {paths.venv(gateway)}" if gateway.pip else "(nothing to install)"
        print(f"interop-gateways: {gateway.name} {versions[gateway.name]} {where}", flush=True)

    def one(pair: tuple[Gateway, Mode]) -> ModeResult:
        gateway, mode = pair
        result = run_mode(gateway, mode, versions[gateway.name], paths, workers=args.workers, keyword=args.keyword,
                          timeout=args.mode_timeout)
        print(_line(result) + f" (log {paths.log(gateway, mode)})", flush=True)
        return result

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, _interrupted)
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(one, chosen))
    if not args.no_docs:
        update_docs(args.docs, gateways, results, paths)
        print(f"interop-gateways: {args.docs} updated", flush=True)
    failed = [f"{r.gateway} {r.mode}" for r in results if not r.ok]
    if failed:
        print(f"interop-gateways: failed outside the baselines or could not run: {', '.join(failed)}", flush=True)
        return 1
    print(f"interop-gateways: {len(results)} modes, every one within its baseline", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
