"""`callproof_scenario`: one scenario prepared for a user's own test (the `@pytest.mark.callproof` marker names it).

    @pytest.mark.callproof(scenario="parallel_two_calls")
    def test_my_client(callproof_mock, callproof_scenario):
        out = my_client.run(callproof_scenario.request, base_url=callproof_mock.url)
        callproof_scenario.check_result(out)     # the expected-outcome rules (EXP-*)

`callproof_scenario.request_in("chat")` (or "anthropic") is the same request in another client's dialect.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from callproof.harness._types import Dialect
from callproof.harness.catalogue import RuleResult
from callproof.harness.judge import Findings, expected_calls, expected_outcome, protocol_problem
from callproof.harness.outcome import result_of_adapter
from callproof.harness.request import DEFAULT_MODEL, front_request, new_case_tag
from callproof.harness.scenario import Scenario

__all__ = ["ScenarioCase", "ScenarioMismatch", "scenario_case"]


class ScenarioMismatch(AssertionError):
    """A result differs from what the scenario expects; the message lists each failed rule."""


@dataclass(frozen=True, slots=True)
class ScenarioCase:
    """A scenario with a fresh case tag: `request` is the Responses request body (markers included) to send."""

    scenario: Scenario
    case: str
    request: dict[str, Any] = field(repr=False)
    model: str = DEFAULT_MODEL

    @property
    def id(self) -> str:
        return str(self.scenario.id)

    def request_in(self, dialect: Dialect) -> dict[str, Any]:
        """The same request (scenario, case tag, stream choice) in `dialect`: responses, chat or anthropic."""
        return front_request(self.id, self.scenario.request, case=self.case, model=self.model,
                             stream=self.request.get("stream"), dialect=dialect)

    @property
    def expected_calls(self) -> list[tuple[str, Any]]:
        """(name, parsed arguments) of the calls a correct implementation yields, in order."""
        return expected_calls(self.scenario.expect.tool_calls)

    def check_result(self, result: Mapping[str, Any]) -> tuple[RuleResult, ...]:
        """Judge a result object of the adapter protocol (docs/spec/contracts.md §5: text, tool_calls, error,
        incomplete) by the expected-outcome rules; raise `ScenarioMismatch` when one fails."""
        __tracebackhide__ = True
        problem = protocol_problem(result)
        if problem is not None:
            raise ScenarioMismatch(f"callproof: not a result object: {problem} (see `callproof docs adapters`)")
        findings = Findings()
        expected_outcome(findings, self.scenario.expect, result_of_adapter(result), where="result")
        results = findings.results()
        failed = [r for r in results if r.outcome == "failed"]
        if failed:
            lines = [f"callproof: scenario {self.id}: {len(failed)} rule(s) failed"]
            lines += [f"  {r.rule.id} {r.rule.level}: {v.message}" for r in failed for v in r.violations]
            raise ScenarioMismatch("\n".join(lines))
        return results


def scenario_case(scenario: Scenario, *, stream: bool | None = None, model: str = DEFAULT_MODEL) -> ScenarioCase:
    case = new_case_tag()
    return ScenarioCase(scenario, case, front_request(scenario.id, scenario.request, case=case, model=model,
                                                     stream=stream, dialect="responses"), model)
