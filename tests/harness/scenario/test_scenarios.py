"""The scenario corpus (scenarios/*.json): every file is valid, the loader rejects broken files with a message that
names the file, the scenario, the JSON path and the fix, descriptions are linted, each expectation agrees with its
output and request, raw frames break exactly the rules they declare, the README's feature table is current, and the
corpus covers every feature issue 3 lists."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from importlib.resources import files
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from callproof.harness import check_bytes
from callproof.harness._types import Dialect
from callproof.harness.request import front_request
from callproof.harness.scenario import (
    Chunked,
    CustomToolCall,
    FunctionCall,
    Scenario,
    ScenarioError,
    bundled_scenarios,
    load_scenarios,
)

BAD = Path(__file__).parent / "data" / "bad"
CORPUS = files("callproof.scenarios")
FILES = sorted((entry for entry in CORPUS.iterdir() if entry.name.endswith(".json")), key=lambda e: e.name)
DOCS: dict[str, dict[str, Any]] = {entry.name: json.loads(entry.read_text(encoding="utf-8")) for entry in FILES}
SCHEMA = json.loads(files("callproof.schemas").joinpath("scenario.schema.json").read_text(encoding="utf-8"))
SCENARIOS = bundled_scenarios()
#: Each scenario as written in its file (the loaded model resolves `order` into steps).
WRITTEN: dict[str, dict[str, Any]] = {s["id"]: s for doc in DOCS.values() for s in doc["scenarios"]}
DIALECTS = ("responses", "chat", "anthropic")
TABLE_BEGIN = "<!-- features:begin"
TABLE_END = "<!-- features:end -->"


# -- every bundled file ------------------------------------------------------------------------------------


def test_the_scenario_schema_is_a_valid_2020_12_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


@pytest.mark.parametrize("name", list(DOCS))
def test_bundled_file_validates_against_the_scenario_schema(name: str) -> None:
    errors = [f"{e.json_path}: {e.message}" for e in jsonschema.Draft202012Validator(SCHEMA).iter_errors(DOCS[name])]
    assert errors == [], f"scenarios/{name}"


@pytest.mark.parametrize("name", list(DOCS))
def test_bundled_file_feature_is_its_file_name(name: str) -> None:
    assert DOCS[name]["feature"] == name.removesuffix(".json")


def test_the_corpus_loads_from_its_directory_as_it_loads_bundled() -> None:
    directory = Path(str(CORPUS))
    assert load_scenarios([directory]).keys() == SCENARIOS.keys()
    assert len(SCENARIOS) == sum(len(doc["scenarios"]) for doc in DOCS.values())


# -- the loader's semantic checks, on small bad files --------------------------------------------------------

LOADER_ERRORS = [
    pytest.param("fragments_do_not_join.json",
                 ["scenarios[0] (bad_fragments).output[0].chunk", "fragments join to", "concatenate exactly"],
                 id="fragments-do-not-join"),
    pytest.param("order_missing_pair.json",
                 ["scenarios[0] (bad_order_missing).order", "misses [(1, 1)]", "list every [output index, fragment"],
                 id="order-misses-a-pair"),
    pytest.param("order_reversed.json",
                 ["scenarios[0] (bad_order_reversed).order", "out of order: [1, 0]", "only items interleave"],
                 id="order-reverses-fragments"),
    pytest.param("unknown_rule.json",
                 ["scenarios[0] (bad_unknown_rule).breaks.responses", "'RSP-ID-999'", "`callproof rules`"],
                 id="unknown-rule-in-breaks"),
    pytest.param("invalid_json.json", ["not valid JSON", "line 12 column 3", "fix the syntax"], id="invalid-json"),
    pytest.param("generated_not_json.json",
                 ["scenarios[0] (bad_generated).expect.tool_calls[0].arguments", "the generated text is not JSON",
                  "make prefix + repeat * times + suffix one JSON value"],
                 id="generated-text-not-json"),
    pytest.param("schema_violation.json",
                 ["$.scenarios[1]", "'expect' is a required property", "see `callproof docs scenario-format`"],
                 id="schema-violation"),
]


@pytest.mark.parametrize(("name", "parts"), LOADER_ERRORS)
def test_loader_rejects_a_bad_file_naming_file_place_and_fix(name: str, parts: list[str]) -> None:
    path = BAD / name
    with pytest.raises(ScenarioError) as caught:
        load_scenarios([path])
    message = str(caught.value)
    assert message.startswith(f"{path}: "), message
    missing = [part for part in parts if part not in message]
    assert missing == [], message


def test_a_user_file_loads_under_any_name(tmp_path: Path) -> None:
    """`feature` is a label: only the bundled corpus names each file after it."""
    doc = {"feature": "something_else", "description": "a file named otherwise",
           "scenarios": [dict(WRITTEN["text_only"], id="named_otherwise")]}
    (tmp_path / "my capture (1).json").write_text(json.dumps(doc), encoding="utf-8")
    loaded = load_scenarios([tmp_path])
    assert list(loaded) == ["named_otherwise"] and loaded["named_otherwise"].feature == "something_else"


_WEATHER_TOOL = {"name": "get_weather", "description": "The weather.", "parameters": {"type": "object"}}


def _with_tool(tmp_path: Path, tool: dict[str, Any]) -> Path:
    request = dict(WRITTEN["text_only"]["request"], tools=[tool])
    doc = {"feature": "tools", "description": "one tool", "scenarios": [dict(WRITTEN["text_only"], id="with_tool",
                                                                           request=request)]}
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


@pytest.mark.parametrize("dialect", ["responses", "chat", "anthropic"])
def test_a_function_tool_may_say_type_function(tmp_path: Path, dialect: Dialect) -> None:
    """Written as Responses writes it, a function tool loads and is sent as the flat one is, in every dialect."""
    typed = load_scenarios([_with_tool(tmp_path, {"type": "function", **_WEATHER_TOOL})])["with_tool"]
    plain = load_scenarios([_with_tool(tmp_path, _WEATHER_TOOL)])["with_tool"]
    assert typed.request == plain.request
    sent = [front_request("with_tool", s.request, case="c", dialect=dialect) for s in (typed, plain)]
    assert sent[0] == sent[1] and "get_weather" in json.dumps(sent[0]["tools"])


@pytest.mark.parametrize(("tool", "says"), [
    ({"type": "function", "function": _WEATHER_TOOL},
     'a function tool is written flat, {"name", "description", "parameters", "strict"} (with "type": "function" or '
     'without): move the fields of "function" up and drop it'),
    ({"type": "computer_use_preview"},
     "'computer_use_preview' is not a tool type: a function tool is {\"name\", \"parameters\"} (\"type\": "
     '"function" optional), a built-in tool {"type": "web_search" | "file_search" | "custom" | "mcp" | "shell" | '
     '"code_interpreter", ...}'),
])
def test_a_tool_in_another_shape_says_what_to_write(tmp_path: Path, tool: dict[str, Any], says: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        load_scenarios([_with_tool(tmp_path, tool)])
    message = str(caught.value)
    assert "$.scenarios[0].request.tools[0]" in message and "(scenario 'with_tool')" in message
    assert says in message and "is not one of" not in message, message


def test_loader_schema_error_names_the_scenario_id() -> None:
    """Every time: a text found valid once is not validated again in the process, one that failed is."""
    for _ in range(2):
        with pytest.raises(ScenarioError, match="bad_no_expect"):
            load_scenarios([BAD / "schema_violation.json"])


def test_loader_rejects_an_id_defined_in_two_files() -> None:
    with pytest.raises(ScenarioError) as caught:
        load_scenarios([BAD / "duplicate_ids"])
    message = str(caught.value)
    assert message.startswith(str(BAD / "duplicate_ids" / "second.json")), message
    assert "'shared_id'" in message and "'first'" in message and "unique across all files" in message


def test_loader_duplicate_id_error_names_both_files_the_path_and_a_fix() -> None:
    with pytest.raises(ScenarioError) as caught:
        load_scenarios([BAD / "duplicate_ids"])
    message = str(caught.value)
    assert "first.json" in message and "$.scenarios[0].id" in message and "rename" in message, message


def test_loader_rejects_a_corpus_id_redefined_in_a_user_file(tmp_path: Path) -> None:
    doc = dict(DOCS["basic.json"], feature="mine")
    (tmp_path / "mine.json").write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(ScenarioError, match="'default' is already defined in feature 'basic'"):
        load_scenarios([Path(str(CORPUS)), tmp_path])


# -- description lint ------------------------------------------------------------------------------------------

_VAGUE = re.compile(r"\bshould\b|\btest that\b", re.IGNORECASE)


def test_scenario_descriptions_are_unique_across_the_corpus() -> None:
    seen: dict[str, str] = {}
    clashes = []
    for scenario in SCENARIOS.values():
        other = seen.setdefault(scenario.description.lower(), scenario.id)
        if other != scenario.id:
            clashes.append(f"{scenario.id} and {other}: {scenario.description!r}")
    assert clashes == []


def test_scenario_descriptions_are_short_and_say_what_happens() -> None:
    problems = [f"{s.feature}.json {s.id}: {s.description!r}" for s in SCENARIOS.values()
                if len(s.description) > 100 or _VAGUE.search(s.description) or s.description != s.description.strip()]
    assert problems == [], "descriptions are <= 100 characters and never say 'should' or 'test that'"


def test_file_descriptions_are_unique_and_say_what_happens() -> None:
    descriptions = [doc["description"] for doc in DOCS.values()]
    assert len(set(descriptions)) == len(descriptions)
    assert [d for d in descriptions if _VAGUE.search(d)] == []


def test_every_scenario_is_tagged_and_quirk_marks_exactly_the_declared_breaks() -> None:
    untagged = [s.id for s in SCENARIOS.values() if not s.tags]
    mismatched = [s.id for s in SCENARIOS.values() if bool(s.breaks) != ("quirk" in s.tags)]
    assert (untagged, mismatched) == ([], [])


# -- each expectation agrees with its output and request -----------------------------------------------------


def _parsed(arguments: str) -> Any:
    """The arguments a correct implementation hands on: '' (a parameterless call) means {}."""
    return json.loads(arguments) if arguments else {}


def _expected_arguments(arguments: str, may_fail: bool) -> Any:
    """As `_parsed`; in a may_fail scenario, a text that is not JSON is expected as {"$text": text}."""
    if may_fail and not _parses(arguments):
        return {"$text": arguments}
    return _parsed(arguments)


def _parses(arguments: str) -> bool:
    try:
        return isinstance(_parsed(arguments), dict)
    except ValueError:
        return False


def _texts(scenario: Scenario) -> list[str]:
    return [o.text for o in scenario.output if isinstance(o, Chunked) and o.type == "text"]


def _fault(scenario: Scenario, kind: str) -> Mapping[str, Any] | None:
    return next((dict(f.params) for f in scenario.faults if f.kind == kind), None)


_STATUS_FOR_ENDING = {"completed": "completed", "length": "incomplete", "content_filter": "incomplete",
                      "failed": "failed"}
_STATUS_FOR_FAULT = {"http_error": "error", "disconnect": "error", "truncate": "error", "malformed": "error",
                     "stream_error": "failed"}


@pytest.mark.parametrize("scenario", list(SCENARIOS.values()), ids=list(SCENARIOS))
def test_expected_status_follows_the_ending_and_faults(scenario: Scenario) -> None:
    certain = [f for f in scenario.faults if f.probability == 1.0]
    fatal = [_STATUS_FOR_FAULT[f.kind] for f in certain if f.kind in _STATUS_FOR_FAULT]
    status = fatal[0] if fatal else _STATUS_FOR_ENDING[scenario.ending]
    if any(c.name_never_sent for c in scenario.calls):
        status = "failed"  # a call without a name cannot run: the turn fails (docs/spec/contracts.md §7.8)
    assert scenario.expect.status == status
    # may_fail: arguments that are not JSON, an ending docs/spec/verdicts.md lets a client take either way, or a
    # request every upstream refuses, a tool without a name (verdicts.md §16)
    nameless = any(isinstance(t, dict) and not t.get("name") for t in scenario.request.get("tools") or ())
    assert (not scenario.expect.may_fail or any(not _parses(c.arguments) for c in scenario.calls)
            or scenario.id == "raw_anthropic_no_message_stop" or nameless)
    http = _fault(scenario, "http_error")
    if http is not None:
        assert (scenario.expect.http_status, scenario.expect.retry_after) == (http["status"], http.get("retry_after"))
    else:
        assert (scenario.expect.http_status, scenario.expect.retry_after) == (None, None)


@pytest.mark.parametrize("scenario", list(SCENARIOS.values()), ids=list(SCENARIOS))
def test_expected_calls_and_text_are_those_of_the_output(scenario: Scenario) -> None:
    expect = scenario.expect
    if expect.status in ("error", "failed"):
        calls: list[FunctionCall] = []  # nothing the turn produced is usable
        texts: list[str] = []
    else:
        calls = [c for c in scenario.calls if expect.status == "completed" or _parses(c.arguments)]
        texts = _texts(scenario)
    made: list[FunctionCall | CustomToolCall] = [
        o for o in scenario.output if isinstance(o, CustomToolCall) or o in calls]  # custom calls: output order
    assert [(c.get("type", "function"), c["name"], c.get("input", c.get("arguments"))) for c in expect.tool_calls] == [
        ("custom", c.name, c.input) if isinstance(c, CustomToolCall)
        else ("function", c.name, _expected_arguments(c.arguments, expect.may_fail)) for c in made]
    for wanted, call in zip(expect.tool_calls, made, strict=True):
        assert wanted.get("call_id", call.call_id) == call.call_id
    assert expect.text == ("".join(texts) if texts else None)
    refusals = [o.text for o in scenario.output if isinstance(o, Chunked) and o.type == "refusal"]
    assert expect.refusal == ("".join(refusals) if refusals and expect.status == "completed" else None)


@pytest.mark.parametrize("scenario", list(SCENARIOS.values()), ids=list(SCENARIOS))
def test_request_offers_every_called_tool_and_pairs_tool_results(scenario: Scenario) -> None:
    request = scenario.request
    offered = {tool.get("name") for tool in request.get("tools", ()) if "type" not in tool}  # function tools
    assert {call.name for call in scenario.calls} <= offered
    custom = {tool.get("name") for tool in request.get("tools", ()) if tool.get("type") == "custom"}
    assert {call.name for call in scenario.custom_calls} <= custom
    choice = request.get("tool_choice")
    if isinstance(choice, dict):
        assert choice["name"] in offered
    if choice == "none":
        assert scenario.calls == ()
    called: set[str] = set()
    for item in request["input"] if isinstance(request["input"], list) else ():  # else a bare string
        if item.get("type") == "function_call":
            called.add(item["call_id"])
        elif item.get("type") == "function_call_output" and "orphan-tool-output" not in scenario.tags:  # on purpose
            assert item["call_id"] in called, f"function_call_output {item['call_id']!r} has no function_call before it"


def test_large_arguments_is_over_a_mebibyte_and_its_file_stays_small() -> None:
    scenario = SCENARIOS["large_arguments"]
    (call,) = scenario.calls
    assert len(call.arguments) >= 1024 * 1024 and max(map(len, call.fragments)) >= 65_536
    assert scenario.expect.tool_calls[0]["arguments"] == json.loads(call.arguments)  # $generate on both sides
    assert len(CORPUS.joinpath("large_arguments.json").read_bytes()) < 8 * 1024


# -- raw frames --------------------------------------------------------------------------------------------

RAW = [
    pytest.param(scenario, dialect, id=f"{scenario.id}::{dialect}")
    for scenario in SCENARIOS.values()
    for dialect in scenario.raw
]


@pytest.mark.parametrize(("scenario", "dialect"), RAW)
def test_raw_frames_break_exactly_the_declared_rules(scenario: Scenario, dialect: Any) -> None:
    wire = b"".join(frame.data for frame in scenario.raw[dialect])
    report = check_bytes(wire, front=dialect, profile="openai")
    details = {r.rule.id: [v.message for v in r.violations] for r in report.failed}
    assert report.failed_rules == scenario.breaks.get(dialect, ()), details


# -- README feature table ----------------------------------------------------------------------------------


def feature_table() -> str:
    """The README's table of feature files, generated from the corpus."""
    rows = ["| file | what it covers | scenarios |", "|---|---|---|"]
    for name, doc in DOCS.items():
        ids = ", ".join(f"`{s['id']}`" for s in doc["scenarios"])
        rows.append(f"| [`{name}`]({name}) | {doc['description']} | {ids} |")
    return "\n".join(rows)


def test_readme_feature_table_lists_every_file_and_scenario() -> None:
    readme = CORPUS.joinpath("README.md").read_text(encoding="utf-8")
    start = readme.index("\n", readme.index(TABLE_BEGIN)) + 1
    table = readme[start : readme.index(TABLE_END)].strip()
    expected = feature_table()
    assert table == expected, f"paste this between the features markers of scenarios/README.md:\n{expected}"


# -- coverage of issue 3's feature list --------------------------------------------------------------------


def _items(scenario: Scenario) -> list[Any]:
    """The request's input items (none for a bare string input)."""
    given = scenario.request["input"]
    return list(given) if isinstance(given, list) else []


def _kinds(scenario: Scenario) -> list[str]:
    return [o.type for o in scenario.output]


def _breaks(scenario: Scenario, **wanted: tuple[str, ...]) -> bool:
    declared = {str(dialect): set(rules) for dialect, rules in scenario.breaks.items()}
    return all(set(rules) <= declared.get(dialect, set()) for dialect, rules in wanted.items())


def _clean(scenario: Scenario) -> bool:
    return not scenario.breaks and scenario.expect.status == "completed"


def _any_call(scenario: Scenario, test: Callable[[FunctionCall], bool]) -> bool:
    return any(test(call) for call in scenario.calls)


def _order(scenario: Scenario) -> Any:
    return WRITTEN[scenario.id].get("order")


def _interleaves(scenario: Scenario) -> bool:
    items = [step.output for step in scenario.steps]
    return items != sorted(items)


def _odd_trailing_backslashes(fragment: str) -> bool:
    return (len(fragment) - len(fragment.rstrip("\\"))) % 2 == 1


def _text_between_calls(scenario: Scenario) -> bool:
    kinds = _kinds(scenario)
    calls = [i for i, kind in enumerate(kinds) if kind == "function_call"]
    return bool(calls) and any(kind == "text" and calls[0] < i < calls[-1] for i, kind in enumerate(kinds))


def _fault_with(kind: str, **params: Any) -> Callable[[Scenario], bool]:
    def test(scenario: Scenario) -> bool:
        found = _fault(scenario, kind)
        return found is not None and all(found.get(k) == v if v is not ... else k in found for k, v in params.items())

    return test


ALL_BREAK = {"responses": ("RSP-ID-004",), "chat": ("CHAT-TC-001",), "anthropic": ("ANT-TOOL-001",)}
COVERAGE: dict[str, Callable[[Scenario], bool]] = {
    "text only": lambda s: _kinds(s) == ["text"] and not s.request.get("tools") and _clean(s) and not s.faults,
    "one call": lambda s: _kinds(s) == ["function_call"] and _clean(s) and not s.faults,
    "parallel calls (2)": lambda s: len(s.calls) == 2 and s.request.get("parallel_tool_calls") is True and _clean(s),
    "parallel calls (8)": lambda s: len(s.calls) == 8 and s.request.get("parallel_tool_calls") is True and _clean(s),
    "argument deltas interleaved round-robin": lambda s: _order(s) == "round-robin" and _interleaves(s),
    "argument deltas interleaved in an explicit order": lambda s: isinstance(_order(s), list) and _interleaves(s)
    and len(s.calls) >= 2,
    "empty arguments: no delta": lambda s: _any_call(s, lambda c: c.arguments == "" and c.fragments == ())
    and _breaks(s, responses=("RSP-ARGS-004",), chat=("CHAT-TC-006",)),
    "empty arguments: one '' delta": lambda s: _any_call(s, lambda c: c.fragments == ("",))
    and _breaks(s, responses=("RSP-ARGS-004",), chat=("CHAT-TC-006",)),
    "empty arguments: '{}'": lambda s: _any_call(s, lambda c: c.arguments == "{}") and _clean(s),
    "missing call_id / chat id": lambda s: _any_call(s, lambda c: c.call_id is None) and _breaks(s, **ALL_BREAK),
    "duplicate ids": lambda s: len({c.call_id for c in s.calls}) < len(s.calls) == 2
    and _breaks(s, responses=("RSP-ID-008",), chat=("CHAT-TC-004",), anthropic=("ANT-TOOL-001",)),
    "tool name fragmented across chunks": lambda s: _any_call(s, lambda c: len(c.name_fragments) > 1)
    and _breaks(s, chat=("CHAT-TC-003",)),
    "arguments before the name": lambda s: _any_call(s, lambda c: c.arguments_before_name)
    and _breaks(s, chat=("CHAT-TC-002", "CHAT-TC-003")),
    "id only on the first chunk": lambda s: _any_call(s, lambda c: c.id_on == "first" and len(c.fragments) > 1)
    and "id-repetition" in s.tags and _clean(s),
    "id repeated on every chunk": lambda s: _any_call(s, lambda c: c.id_on == "every")
    and _breaks(s, chat=("CHAT-TC-003",)),
    "name repeated as '' on later chunks": lambda s: _any_call(s, lambda c: c.name_on_later == "empty"
                                                               and len(c.fragments) > 1) and _clean(s),
    "arguments only in the done event": lambda s: _any_call(s, lambda c: c.arguments_in_done_only)
    and _breaks(s, responses=("RSP-ARGS-001",)),
    "text before a call": lambda s: _kinds(s)[:2] == ["text", "function_call"],
    "text between calls": _text_between_calls,
    "text after calls": lambda s: "function_call" in _kinds(s) and _kinds(s)[-1] == "text",
    "escaped quotes split mid-escape": lambda s: _any_call(
        s, lambda c: '\\"' in c.arguments and any(_odd_trailing_backslashes(f) for f in c.fragments[:-1])),
    "surrogate-pair escape split mid-pair": lambda s: _any_call(
        s, lambda c: any(re.search(r"\\ud[89ab][0-9a-f]{2}$", f, re.IGNORECASE) for f in c.fragments)),
    "non-ASCII arguments one code point a delta": lambda s: _any_call(
        s, lambda c: c.fragments == tuple(c.arguments) and any(ord(ch) > 0xFFFF for ch in c.arguments)),
    "UTF-8 code points split across writes": lambda s: _fault_with("fragment", bytes=1)(s)
    and _any_call(s, lambda c: len(c.arguments.encode()) > len(c.arguments)),
    "a large argument string": lambda s: _any_call(s, lambda c: len(c.arguments) >= 1024 * 1024),
    "multi-turn with function_call_output input": lambda s: {"function_call", "function_call_output"}
    <= {item.get("type") for item in _items(s)},
    "input as a bare string": lambda s: isinstance(s.request["input"], str),
    "message content as a plain string": lambda s: any(i.get("form") == "string" for i in _items(s)),
    "instructions plus a developer message": lambda s: "instructions" in s.request
    and any(i.get("role") == "developer" for i in _items(s)),
    "a tool output of content parts": lambda s: any(isinstance(i.get("output"), list) for i in _items(s)),
    "web_search, file_search and custom tools beside a function tool": lambda s: {"web_search", "file_search",
    "custom", None} <= {t.get("type") for t in s.request.get("tools", ())},
    "tool_choice none": lambda s: s.request.get("tool_choice") == "none",
    "tool_choice required": lambda s: s.request.get("tool_choice") == "required" and bool(s.calls),
    "tool_choice named": lambda s: isinstance(s.request.get("tool_choice"), dict) and bool(s.calls),
    "finish by length mid-arguments": lambda s: s.ending == "length"
    and _any_call(s, lambda c: not _parses(c.arguments)),
    "XML-style tool text": lambda s: "xml-tool-text" in s.tags and not s.calls
    and any(t.startswith("<function=") for t in _texts(s)),
    "reasoning before a call": lambda s: "reasoning" in _kinds(s) and "function_call" in _kinds(s)
    and _kinds(s).index("reasoning") < _kinds(s).index("function_call"),
    "ending failed": lambda s: s.ending == "failed",
    "ending content_filter": lambda s: s.ending == "content_filter",
    "HTTP 429 with Retry-After": lambda s: _fault_with("http_error", status=429, retry_after=...)(s)
    and s.expect.retry_after is not None,
    "HTTP 500": _fault_with("http_error", status=500),
    "HTTP 400": _fault_with("http_error", status=400),
    "HTTP 401": _fault_with("http_error", status=401),
    "HTTP 404": _fault_with("http_error", status=404),
    "HTTP 503": _fault_with("http_error", status=503),
    "in-stream error": _fault_with("stream_error"),
    "disconnect after N events": _fault_with("disconnect", after_events=...),
    "disconnect after N bytes": _fault_with("disconnect", after_bytes=...),
    "truncation without a terminal event": _fault_with("truncate"),
    "a malformed chunk mid-stream": _fault_with("malformed"),
    "a stall": _fault_with("stall", ms=...),
    "keep-alive comments": _fault_with("keepalive"),
    "every event split into 1-byte writes": _fault_with("fragment", bytes=1),
    "CRLF framing": _fault_with("crlf"),
    "slow first byte": _fault_with("slow_first_byte", ms=...),
    "seeded chaos": lambda s: any(f.probability < 1.0 for f in s.faults),
    "timing: ttft, gaps, tokens per second": lambda s: s.timing.ttft_ms > 0 or s.timing.tokens_per_s is not None,
    "raw frames": lambda s: bool(s.raw),
    "a non-stream request": lambda s: s.request.get("stream") is False,
}


@pytest.mark.parametrize("feature", list(COVERAGE))
def test_corpus_covers(feature: str) -> None:
    covering = [s.id for s in SCENARIOS.values() if COVERAGE[feature](s)]
    assert covering, f"no scenario covers {feature!r}: add one to the matching scenarios/<feature>.json"
