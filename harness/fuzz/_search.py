"""The search: hypothesis generates scenarios, each is served by one mock to one IUT and judged through the rules of
`callproof run`, and the first failure is shrunk. Only rule groups whose verdict depends on what was streamed, not on
when, are judged (`FUZZ_GROUPS`): a scenario that fails keeps failing on replay, which hypothesis needs to shrink
it. A failure is what fails `callproof run`: a MUST rule, or a case the IUT could not answer."""

from __future__ import annotations

import tempfile
import time
from collections.abc import Mapping, Sequence
from typing import Any

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis.configuration import set_hypothesis_home_dir
from hypothesis.errors import Flaky, HypothesisException

from callproof.harness.catalogue import STREAM_FAMILIES
from callproof.harness.judge import CaseResult
from callproof.harness.run import CLIENT_GROUPS, Harness, IUTError
from callproof.harness.scenario import Scenario

from ._generate import Json
from ._scenario_file import parse_generated
from ._session import FuzzError, FuzzFailure, FuzzOptions, FuzzOutcome
from ._strategies import scenario_documents

__all__ = ["FUZZ_GROUPS", "failure_of", "fuzz"]

#: The rule groups judged: deterministic for a given scenario (the timing-based `streaming` and the concurrent
#: `isolation` case are left out, and no fault is generated).
FUZZ_GROUPS: tuple[str, ...] = (*STREAM_FAMILIES, "expected", "translation", "ids", "equivalence", *CLIENT_GROUPS)


class _Found(Exception):
    """A failing example: hypothesis shrinks the examples that raise it."""

    def __init__(self, failure: FuzzFailure) -> None:
        super().__init__(f"{failure.rule}: {failure.message}")
        self.failure = failure


class _Stop(BaseException):
    """Ends the search without counting as a failure (hypothesis catches only Exception): time is up, or the IUT
    cannot be run at all (`problem`)."""

    def __init__(self, problem: str | None = None, cause: BaseException | None = None) -> None:
        super().__init__(problem or "time is up")
        self.problem = problem
        self.cause = cause


class _FuzzHarness(Harness):
    """A harness whose scenarios come one at a time: each is served by the same mock and IUT, judged, forgotten."""

    def play(self, scenario: Scenario) -> list[CaseResult]:
        served = self.mock.app.state.scenarios
        self.scenarios[scenario.id] = served[scenario.id] = scenario
        try:
            specs = [s for s in self.cases() if s.scenario == scenario.id and s.group in FUZZ_GROUPS]
            return [self.judge(s) for s in specs]
        finally:
            del self.scenarios[scenario.id]
            served.pop(scenario.id, None)
            for key in [k for k in self._runs if k[0] == scenario.id]:  # a replay runs the IUT again
                del self._runs[key]
            self.mock.journal.reset()  # keeps each example's journal lookups small


def failure_of(scenario: Mapping[str, Any], results: Sequence[CaseResult]) -> FuzzFailure | None:
    """What fails `callproof run` in these results: the first case error or failed MUST rule, in case order."""
    found: list[tuple[str, str, str]] = []
    for result in results:
        if result.outcome == "error":
            found.append(("error", result.message.splitlines()[0] if result.message else "no answer", result.spec.id))
        for failed in result.must_failed:
            message = failed.violations[0].message if failed.violations else failed.rule.statement
            found.append((failed.rule.id, message, result.spec.id))
    if not found:
        return None
    rule, message, case = found[0]
    also = tuple(dict.fromkeys(r for r, _, _ in found[1:] if r != rule))
    return FuzzFailure(rule, message, case, scenario, also)


class _Session:
    """The state of one search: the harness, the clock, the examples run and the failures seen."""

    def __init__(self, harness: _FuzzHarness, options: FuzzOptions) -> None:
        self.harness = harness
        self.options = options
        self.start = time.monotonic()
        self.examples = 0
        self.shrink_runs = 0
        self.found_after: float | None = None
        self.last: FuzzFailure | None = None

    def probe(self, scenario: Json) -> None:
        if self.found_after is None:
            if time.monotonic() - self.start >= self.options.seconds:
                raise _Stop()
            self.examples += 1
        else:
            self.shrink_runs += 1
        try:
            parsed = parse_generated(scenario)
        except Exception as exc:  # a generated scenario the loader rejects is a bug of this module
            raise _Stop(f"internal error: a generated scenario is invalid: {exc}", exc) from None
        try:
            results = self.harness.play(parsed)
        except Exception as exc:  # the harness never raises for what an IUT does: this is a bug of callproof
            raise _Stop(f"internal error: {exc!r}", exc) from None
        setup = next((r for r in results if r.details.get("setup_error")), None)
        if setup is not None:
            raise _Stop(setup.message)
        failure = failure_of(scenario, results)
        if failure is not None:
            if self.found_after is None:
                self.found_after = time.monotonic() - self.start
            self.last = failure
            raise _Found(failure)


def _search(session: _Session, options: FuzzOptions) -> FuzzFailure | None:
    """Run hypothesis; the shrunk failure, or None when none was found."""
    @hypothesis_seed(options.seed)
    @settings(max_examples=options.max_examples, deadline=None, database=None, derandomize=False,
              phases=(Phase.generate, Phase.shrink), suppress_health_check=list(HealthCheck),
              verbosity=Verbosity.quiet, print_blob=False, report_multiple_bugs=False)
    @given(scenario_documents(quirks=options.quirks))
    def probe(scenario: Json) -> None:
        session.probe(scenario)

    try:
        probe()
    except _Found as found:
        return found.failure
    return None


def fuzz(options: FuzzOptions) -> FuzzOutcome:
    """Generate, run and judge scenarios until a failure (then shrink it), `max_examples` or `seconds`.

    Raises `IUTError` when the IUT cannot be run at all, `FuzzError` when hypothesis stops the search."""
    replayed = True
    harness = _FuzzHarness(options.config, {})
    with tempfile.TemporaryDirectory(prefix="callproof-fuzz-") as home, harness:
        set_hypothesis_home_dir(home)  # hypothesis caches go here, not into the user's directory
        session = _Session(harness, options)
        try:
            failure = _search(session, options)
        except _Stop as stop:
            if stop.problem is not None:
                if stop.cause is not None:
                    raise stop.cause from None
                raise IUTError(stop.problem) from None
            failure = None
        except Flaky:  # the shrunk failure did not fail again: report the last one seen
            failure, replayed = session.last, False
        except HypothesisException as exc:
            raise FuzzError(f"the search stopped: {exc}") from None
        finally:
            set_hypothesis_home_dir(None)
    seconds = time.monotonic() - session.start
    return FuzzOutcome(session.examples, seconds, options.seed, failure, session.found_after or 0.0,
                       session.shrink_runs, replayed)
