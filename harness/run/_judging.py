"""What a rule group's judge reads (`Judging`: the played scenario, the run's configuration, the non-stream answer on
demand, the calibrated slack) and the judges' shapes (`Judge`, `found`, `with_turns`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from callproof.harness.catalogue import RuleResult
from callproof.harness.judge import (
    DEFAULT_SLACK,
    Findings,
    FrontAnswer,
    UpstreamView,
    carried_expect,
    in_turn,
    merge_results,
    policy_expect,
    settled_expect,
)
from callproof.harness.outcome import Result
from callproof.harness.scenario import Expect

from ._config import RunConfig
from ._scenario_run import ScenarioRun
from ._ws_turns import JudgedTurn

__all__ = ["Each", "Judge", "Judging", "found", "with_turns"]


@dataclass(frozen=True, slots=True)
class Judging:
    """What a group's judge reads: the played scenario, the run's configuration, the non-stream answer on demand
    (`plain`: the equivalence group, and the faults group for an ending's GW-FAULT-004) and the slack of the causal
    timing rule (GW-STREAM-002, calibrated)."""

    run: ScenarioRun
    config: RunConfig
    plain: Callable[[ScenarioRun], FrontAnswer | None]
    slack: float = DEFAULT_SLACK

    @property
    def sent(self) -> Result | None:
        """What the mock's stream held, read as its reader holds it: the client's wire, the gateway's upstream."""
        if self.config.mode != "gateway":
            return self.run.wire
        return self.run.upstream.sent if self.run.upstream is not None else None

    @property
    def expect(self) -> Expect:
        """The scenario's expectation under the run's `--policy`, then given what the mock sent (`settled_expect`: an
        Anthropic stream cut after its stop_reason may be finished or an error, docs/spec/verdicts.md §1), and in
        gateway mode through its front and upstream (`carried_expect`: an Anthropic upstream's refusal may reach a
        Chat or Responses front as text)."""
        expect = settled_expect(policy_expect(self.run.scenario, self.config.policies), self.sent)
        if self.config.mode != "gateway":
            return expect
        refused = self.run.answer is not None and bool(self.run.answer.result.refusal)
        return carried_expect(expect, self.config.front, self.config.upstream_dialect, refused)

    def sandwich(self) -> tuple[FrontAnswer, UpstreamView]:
        """The front's answer and what reached the upstream (gateway mode: a played scenario has both)."""
        run = self.run
        assert run.answer is not None and run.upstream is not None
        return run.answer, run.upstream


class Judge(Protocol):
    """The results of a group's rules on a played scenario (the verdict keeps those of the group's prefixes)."""

    def __call__(self, judging: Judging, /) -> Sequence[RuleResult]: ...





def found(check: Callable[[Findings, Judging], None]) -> Judge:
    """A judge from a function writing its rules' results into `Findings`."""

    def judge(judging: Judging, /) -> Sequence[RuleResult]:
        findings = Findings()
        check(findings, judging)
        return findings.results()

    return judge


Each = Callable[[Findings, Judging, JudgedTurn], None]


def with_turns(group: str, judge: Judge, each: Each) -> Judge:
    """`judge`, and over a WebSocket front `each` on every other turn of the socket that the group touches, its
    findings named by the turn (docs/spec/gateway-websocket.md §6)."""

    def judged(judging: Judging, /) -> Sequence[RuleResult]:
        own = judge(judging)
        turns = []
        for turn in judging.run.turns:
            if turn.touches(group) and turn.answer is not None:
                findings = Findings()
                each(findings, judging, turn)
                turns.append(in_turn(findings.results(), turn.label))
        return merge_results(own, *turns) if turns else own

    return judged

