"""The client adapters of real libraries (examples/client_openai.py, examples/clients/) do what docs/interop.md
records: its table of failures equals the baselines `make interop` runs with (examples/baselines/), at the versions
pinned by the `interop` extra, and a handful of scenarios per library, run through the harness against a real mock,
pass where the record says nothing and fail exactly the recorded rules where it lists them, and so does every
scenario its baseline lists (each entry still true at the pinned version). `make test` installs the extra; without it
(`pip install -e '.[dev]'` alone) the runs skip with the reason, except under CI (CI=true), where they fail."""

from __future__ import annotations

import importlib.util
import os
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

from callproof.harness import Dialect
from callproof.harness.report_model import load_baseline
from callproof.harness.run import Harness, RunConfig

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "interop.md"
#: The groups a library is judged in: `loop` is a sequence's (an agent loop or a retry sequence).
GROUPS = ("expected", "client", "loop")


@dataclass(frozen=True, slots=True)
class Library:
    name: str  # as in the `interop` extra
    baseline: str  # examples/baselines/<baseline>.txt
    module: str  # skipped unless importable
    client: str  # --client module:function
    #: A handful of scenarios: some the record lists, one it does not (must pass). The scenarios of the baseline
    #: run too, except `slow` ones: LangChain's large_arguments takes ~15 min of CPU (docs/interop.md).
    scenarios: tuple[str, ...]
    slow: tuple[str, ...] = ()
    dialect: Dialect = "responses"  # --client-dialect
    transport: str = "http"  # --client-transport

    @property
    def label(self) -> str:
        """The library's name in docs/interop.md: its package, and the dialect when the package speaks several (or
        the transport, over WebSocket)."""
        if self.transport != "http":
            return f"{self.name} ({self.transport})"
        return self.name if self.dialect in ("responses", self.name) else f"{self.name} ({self.dialect})"


LIBRARIES = (
    Library("openai", "openai-sdk", "openai", "examples.client_openai:run",
            ("one_call", "duplicate_call_ids", "empty_args_no_delta", "interleaved_round_robin",
             "custom_tool_beside_function", "refusal_plain", "reasoning_summary_encrypted")),
    Library("openai-agents", "openai-agents", "agents", "examples.clients.openai_agents:run",
            ("one_call", "length_mid_text", "length_after_first_call", "empty_args_no_delta", "duplicate_call_ids")),
    Library("langchain-openai", "langchain-openai", "langchain_openai", "examples.clients.langchain_openai:run",
            ("one_call", "arguments_in_done_only", "interleaved_round_robin", "length_mid_arguments", "fault_truncate",
             "empty_args_no_delta"), slow=("large_arguments",)),
    Library("litellm", "litellm", "litellm", "examples.clients.litellm_responses:run",
            ("one_call", "fault_malformed", "empty_args_no_delta", "interleaved_round_robin", "custom_tool_apply_patch",
             "refusal_plain", "reasoning_summary_encrypted")),
    Library("openai", "openai-chat", "openai", "examples.client_openai_chat:run",
            ("one_call", "interleaved_round_robin", "length_mid_text", "fault_truncate", "id_on_every_chunk",
             "refusal_plain", "chat_error_then_done"),
            dialect="chat"),
    Library("anthropic", "anthropic-sdk", "anthropic", "examples.client_anthropic:run",
            ("one_call", "interleaved_round_robin", "length_mid_arguments", "fault_stream_error", "refusal_plain",
             "content_filter_text", "reasoning_summary_encrypted"), dialect="anthropic"),
    Library("openai", "openai-sdk-ws", "openai", "examples.client_openai_ws:run",
            ("one_call", "empty_args_no_delta", "missing_call_id", "interleaved_round_robin", "fault_stream_error"),
            transport="websocket"),
    Library("openai-agents", "openai-agents-ws", "agents", "examples.clients.openai_agents_ws:run",
            ("one_call", "length_mid_text", "empty_args_no_delta", "retry_503_once_then_text"), transport="websocket"),
)
_RULE = re.compile(r"\b[A-Z]+(?:-[A-Z]+)?-\d{3}\b")


def _documented() -> dict[str, tuple[str, dict[str, set[str]]]]:
    """docs/interop.md's failure table: library label -> (version, scenario -> the rules that fail in its cases)."""
    names = {library.label for library in LIBRARIES}
    out: dict[str, tuple[str, dict[str, set[str]]]] = {}
    for line in DOC.read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 6 or cells[0] not in names:
            continue
        library, version, scenarios, rules = cells[:4]
        known_version, table = out.setdefault(library, (version, {}))
        assert version == known_version, f"{library}: two versions in docs/interop.md, {known_version} and {version}"
        for scenario in re.findall(r"`([a-z0-9_]+)`", scenarios):
            table.setdefault(scenario, set()).update(_RULE.findall(rules))
    return out


def _baselined(library: Library) -> dict[str, frozenset[str]]:
    """The library's baseline: case id -> rules."""
    return load_baseline(ROOT / "examples" / "baselines" / f"{library.baseline}.txt").entries


def test_the_record_equals_the_baselines() -> None:
    documented = _documented()
    assert sorted(documented) == sorted(library.label for library in LIBRARIES)
    for library in LIBRARIES:
        by_scenario: dict[str, set[str]] = {}
        baselined = _baselined(library)
        for case, rules in baselined.items():
            scenario = case.partition("::")[0]
            # A case with no result to judge (an error) lists no rule; the scenario's other case must name them.
            named = any(r for c, r in baselined.items() if c.partition("::")[0] == scenario)
            assert rules or named, f"{library.baseline}.txt: {case} lists no rule; name the rules the library fails"
            by_scenario.setdefault(scenario, set()).update(rules)
        assert documented[library.label][1] == by_scenario, library.label


def test_the_record_names_the_pinned_versions() -> None:
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    pins = {name: version for name, _, version in (requirement.partition("==") for requirement in extra["interop"])}
    documented = _documented()
    for library in LIBRARIES:
        version = documented[library.label][0]
        assert pins.get(library.name) == version, f"docs/interop.md has {library.label} {version}, the extra {pins}"


def _reported_as_error(case: str, known: dict[str, frozenset[str]]) -> bool:
    """Whether `case` is the `expected` case of an incomplete turn the library reports as an error: every library's
    CLI-005 entry is one (no library of the extra ignores `incomplete` quietly), and CLI-005 alone judges it, the
    `expected` case being skipped with that reason (docs/spec/verdicts.md §3)."""
    scenario, _, group = case.partition("::")
    return group == "expected" and "CLI-005" in known.get(f"{scenario}::client", frozenset())


@pytest.mark.parametrize("library", LIBRARIES, ids=lambda library: library.baseline)
def test_the_library_behaves_as_recorded(library: Library, monkeypatch: pytest.MonkeyPatch) -> None:
    if importlib.util.find_spec(library.module) is None:
        reason = f"{library.name} is not installed: pip install -e '.[interop]' (make test does)"
        if os.environ.get("CI", "").lower() not in ("", "0", "false", "no"):
            pytest.fail(f"CI=true and {reason}", pytrace=False)
        pytest.skip(reason)
    monkeypatch.syspath_prepend(str(ROOT))  # --client imports `examples.…` from the repository root
    known = _baselined(library)
    scenarios = (set(library.scenarios) | {case.partition("::")[0] for case in known}) - set(library.slow)
    config = RunConfig(client=library.client, client_dialect=library.dialect, client_transport=library.transport,
                       case_timeout=60)
    with Harness(config) as harness:
        specs = [spec for spec in harness.cases() if spec.scenario in scenarios and spec.group in GROUPS]
        assert any(spec.id in known for spec in specs) and any(spec.id not in known for spec in specs)
        results = [harness.judge(spec) for spec in specs]
    seen = {r.spec.id: (r.outcome, sorted({f.rule.id for f in r.failed}), r.message) for r in results}
    wanted = {spec.id: ("failed", sorted(known[spec.id]), "") if spec.id in known
              else ("skipped", [], "") if _reported_as_error(spec.id, known) else ("passed", [], "") for spec in specs}
    assert {case: got[:2] for case, got in seen.items()} == {case: want[:2] for case, want in wanted.items()}, seen
