"""The controller's watch over the bundled suite's cases as they arrive, in the order the controller receives them
(under pytest-xdist, from every worker): `--max-consecutive-errors N` stops the run once N scenarios in a row got
no answer at all, and a progress line is kept on a terminal (`_progress`).

"No answer at all" is the `no_answer` detail the harness puts on a case (`callproof.harness.run.NO_ANSWER`): no
HTTP head (refused, reset, timed out), a head and then not one byte before the case timeout, an IUT that could
not be started, an adapter that could not be run or timed out without a result. The cases of one scenario share
one play, so they count once: a scenario that hangs on its own does not stop the run, N scenarios in a row do. A
skipped case neither counts nor breaks the streak; any other case breaks it.

Stopping sets `session.shouldfail` (pytest ends after the running case, as `-x` does), tells pytest-xdist's
controller to shut its workers down, and leaves the reason where every worker's next case finds it
(`callproof.harness.run.request_stop`), so a worker runs no further case. The run then exits 1: the report holds
what was judged, marked incomplete with the reason (`stopped`), never counting the rest as passed.
"""

from __future__ import annotations

from collections.abc import Generator

import pytest

from callproof.harness.report_model import Case, tally
from callproof.harness.run import NO_ANSWER, request_stop

from ._progress import Progress

__all__ = ["RunWatch"]


class RunWatch:
    """Registered as a plugin on the controller; `Collector` hands it every case (`case`)."""

    def __init__(self, limit: int, progress: Progress, flag: str = "--max-consecutive-errors") -> None:
        #: `--max-consecutive-errors`: 0 never stops.
        self.limit = limit
        #: The option as the user gave it (`--callproof-max-consecutive-errors` in pytest).
        self.flag = flag
        self.progress = progress
        #: Why the run stopped early; None while it has not.
        self.stopped: str | None = None
        self._streak: list[str] = []
        self._last = ""
        self._session: pytest.Session | None = None

    @pytest.hookimpl(tryfirst=True)  # before pytest-xdist brings its workers up
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        self._session = session
        dist = session.config.pluginmanager.get_plugin("terminaldistreporter")
        if dist is not None and session.config.get_verbosity() < 0:  # -q: not "bringing up nodes..." (twice)
            dist.ensure_show_status = lambda: None
        if self.progress.active:  # the line replaces pytest's letters and percentages
            reporter = session.config.pluginmanager.get_plugin("terminalreporter")
            if reporter is not None and hasattr(reporter, "_show_progress_info"):
                reporter._show_progress_info = False

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.progress.total = self.progress.total or len(session.items)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: object, ids: list[str]) -> None:
        self.progress.total = len(ids)  # the workers collect; the controller's own item list is empty

    @pytest.hookimpl(wrapper=True)
    def pytest_report_teststatus(self, report: pytest.TestReport,
                                 config: pytest.Config) -> Generator[None, tuple[str, str, str], tuple[str, str, str]]:
        status = yield
        if self.progress.active and config.get_verbosity() <= 0 and status:
            return status[0], "", status[2]
        return status

    def case(self, case: Case) -> None:
        """A case arrived: the progress line moves; the streak grows, or breaks, and may stop the run."""
        self.progress.count(tally(case))
        if case.details.get(NO_ANSWER):
            if case.scenario not in self._streak:
                self._streak.append(case.scenario)
            self._last = case.message.splitlines()[0] if case.message else "no answer"
        elif case.outcome != "skipped":
            self._streak.clear()
        if self.limit and len(self._streak) >= self.limit and self.stopped is None:
            self.stop(f"{len(self._streak)} scenarios in a row got no answer at all (the last: {self._last}); "
                      f"stopped by {self.flag} {self.limit}")

    def stop(self, reason: str) -> None:
        """End the run after the cases running now: in this process, in xdist's controller, in every worker."""
        self.stopped = reason
        request_stop(reason)
        if self._session is None:
            return
        self._session.shouldfail = reason
        dsession = self._session.config.pluginmanager.get_plugin("dsession")
        if dsession is not None:
            dsession.shouldstop = reason

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        self.progress.clear()
        if self.stopped is not None:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
