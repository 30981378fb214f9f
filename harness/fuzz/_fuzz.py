"""`callproof fuzz`: scenarios generated with hypothesis within the scenario schema, run against one mock and one
implementation under test through the same rules as `callproof run`, and the first failure shrunk to a minimal
scenario file the user adds to their suite (`callproof run --scenarios FILE`).

What varies (scenarios/README.md terminology): the output items (1 to 4: function calls, text, reasoning);
each item's fragments (explicit `chunk.fragments` at random boundaries, which may fall inside an escape or between
the code points of an emoji); the order of the fragments across items (sequential, round-robin, or an explicit
interleaving); the call_id (given, absent: the mock's stable id, or null: no id on the wire); the chat quirks of
one call (a split name, an id on every delta, a name on later deltas, arguments before the name, Responses
arguments only in the done event); unicode (multi-byte, JSON escapes, emoji, line separators) in arguments, text
and the user's message; and sizes (number of calls, argument length).

Every generated scenario is written as scenario file text and parsed with `parse_scenario_file`, so it is validated
exactly like a user's scenario. Only rule groups whose verdict depends on what was streamed, not on when, are
judged (`FUZZ_GROUPS`: no `streaming`, no `isolation`): a scenario that fails keeps failing on replay, which
hypothesis needs to shrink it. A failure is what fails `callproof run`: a MUST rule, or a case the IUT could not
answer.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import random
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, cast

from callproof.harness._types import Dialect
from callproof.harness.catalogue import PROFILES, STREAM_FAMILIES, Profile
from callproof.harness.judge import CaseResult
from callproof.harness.run import CLIENT_GROUPS, Harness, IUTError, RunConfig

if TYPE_CHECKING:
    from hypothesis.strategies import DrawFn, SearchStrategy

    from callproof.mock_server import Scenario

# hypothesis is imported where it is used: importing it takes longer than the rest of the command line.

__all__ = [
    "FUZZ_GROUPS",
    "Draws",
    "FuzzFailure",
    "FuzzOptions",
    "FuzzOutcome",
    "add_fuzz_parser",
    "expect_of",
    "failure_of",
    "fuzz",
    "fuzz_command",
    "gen_scenario",
    "named_scenario",
    "parse_generated",
    "scenario_documents",
    "scenario_file",
]

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
Json = dict[str, Any]
T = TypeVar("T")

#: The rule groups judged: deterministic for a given scenario (the timing-based `streaming` and the concurrent
#: `isolation` case are left out, and no fault is generated).
FUZZ_GROUPS: tuple[str, ...] = (*STREAM_FAMILIES, "expected", "translation", "ids", "equivalence", *CLIENT_GROUPS)
#: Sizes of a generated scenario: kept small, so each example runs in tens of milliseconds.
MAX_OUTPUTS = 4
MAX_ARGUMENT_CHARS = 200
MAX_FRAGMENTS = 12
MAX_TEXT_CHARS = 40
_SCHEMA_URL = "https://callproof.dev/schemas/scenario.schema.json"
_FEATURE = "fuzz"

#: Characters of generated strings, simplest first (hypothesis shrinks towards the first): ASCII, characters JSON
#: escapes, then multi-byte ones (accents, CJK, RTL, combining marks, zero-width and line separators, emoji and
#: their modifiers, astral code points). Explicit lists: hypothesis needs no unicode tables.
_ASCII = "abcxyz AZ019_-.,:;!?'()[]{}<>/@#$%&*+=|~^`"
_ESCAPED = '"\\\n\r\t\b\f\x00\x01\x1f\x7f'
_UNICODE = ("éßüñçøŁΩπ€£…\u2013\u2014\u201c\u201d«»中文日本語한국\u05d0\u0627\u0301"
            "\u00a0\u200b\u200d\u2028\u2029\ufeff\x85😀🎉🚀👍\U0001f3fd🇫🇷\U0001d11e💩")
CHARS = _ASCII + _ESCAPED + _UNICODE
NAME_CHARS = "abcdefghijklmnopqrstuvwxyz_0123456789-ABCDEFGHIJKLMNOPQRSTUVWXYZ"
ID_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_-"
#: How arguments are written as JSON text: compact (raw UTF-8 or \u escapes), spaced, indented.
_STYLES: tuple[Mapping[str, Any], ...] = (
    {"ensure_ascii": False, "separators": (",", ":")},
    {"ensure_ascii": True, "separators": (",", ":")},
    {"ensure_ascii": False, "separators": (", ", ": ")},
    {"ensure_ascii": True, "separators": (", ", ": ")},
    {"ensure_ascii": False, "indent": 2},
)
#: At most one quirk per call (combined quirks can make a stream ambiguous: a name fragment or a repeated name?).
_QUIRKS: tuple[str, ...] = ("name_chunk", "id_on_every", "name_empty", "name_repeat", "arguments_before_name",
                            "arguments_in_done_only")


# -- generation ------------------------------------------------------------------------------------------------


class Draws(Protocol):
    """The choices a scenario is generated from (hypothesis records and shrinks them: smaller is simpler)."""

    def integer(self, low: int, high: int) -> int: ...

    def text(self, max_size: int, *, min_size: int = 0, alphabet: str = CHARS) -> str: ...

    def cuts(self, length: int, most: int) -> list[int]:
        """Sorted distinct positions in 1..length-1, at most `most` of them."""
        ...

    def json_object(self) -> Json: ...

    def items(self, build: Callable[[Draws], T], min_size: int, max_size: int) -> list[T]:
        """A list of `build`'s results (hypothesis deletes whole elements when it shrinks)."""
        ...


def _pick(draws: Draws, options: Sequence[str]) -> str:
    return options[draws.integer(0, len(options) - 1)]


def gen_arguments(draws: Draws) -> str:
    """A JSON object as a model would stream it, at most MAX_ARGUMENT_CHARS long."""
    value = draws.json_object()
    style = _STYLES[draws.integer(0, len(_STYLES) - 1)]
    text = json.dumps(value, **style)
    return text if len(text) <= MAX_ARGUMENT_CHARS else "{}"  # keep the example small


def gen_fragments(draws: Draws, value: str) -> list[str]:
    """`value` cut at code point boundaries into at most MAX_FRAGMENTS non-empty fragments."""
    if len(value) < 2:
        return [value]
    bounds = [0, *draws.cuts(len(value), MAX_FRAGMENTS - 1), len(value)]
    return [value[a:b] for a, b in pairwise(bounds)]


def gen_call(draws: Draws, quirks: bool) -> Json:
    """A function call: name, call_id given / absent / null, arguments and their fragments, at most one quirk."""
    name = draws.text(24, min_size=1, alphabet=NAME_CHARS)
    item: Json = {"type": "function_call", "name": name}
    identity = _pick(draws, ("absent", "given", "given", "null") if quirks else ("absent", "given"))
    if identity == "given":
        item["call_id"] = f"call_{draws.text(24, min_size=1, alphabet=ID_CHARS)}"  # made unique by gen_scenario
    elif identity == "null":
        item["call_id"] = None
    item["arguments"] = gen_arguments(draws)
    item["chunk"] = {"fragments": gen_fragments(draws, item["arguments"])}
    quirk = _pick(draws, ("none",) * len(_QUIRKS) + _QUIRKS) if quirks else "none"  # half the calls
    if quirk == "name_chunk" and len(name) > 1:
        item["name_chunk"] = {"fragments": gen_fragments(draws, name)}
    elif quirk == "id_on_every":
        item["id_on"] = "every"
    elif quirk in ("name_empty", "name_repeat"):
        item["name_on_later"] = quirk.removeprefix("name_")
    elif quirk in ("arguments_before_name", "arguments_in_done_only"):
        item[quirk] = True
    return item


def gen_chunked(draws: Draws, kind: str) -> Json:
    """A text or reasoning item and its fragments."""
    text = draws.text(MAX_TEXT_CHARS, min_size=1)
    return {"type": kind, "text": text, "chunk": {"fragments": gen_fragments(draws, text)}}


def gen_interleaving(draws: Draws, chunked: Sequence[bool], counts: Sequence[int]) -> list[list[int]]:
    """An explicit order of every [item, fragment] pair: each step is a fragment of an item already started or the
    first of the next item. Items start in output order (as chat indexes and Responses output indexes keep them),
    and a text or reasoning item starts only once the one before it has ended: chat has a single content stream, in
    which interleaved text items would mix. Choice 0 continues the earliest open item, so an interleaving shrinks
    towards sequential."""
    taken = [0] * len(counts)
    started = 0
    steps: list[list[int]] = []
    while len(steps) < sum(counts):
        candidates = [i for i in range(started) if taken[i] < counts[i]]
        if started < len(counts) and not (chunked[started] and any(chunked[i] for i in candidates)):
            candidates.append(started)
        item = candidates[draws.integer(0, len(candidates) - 1)]
        started += item == started
        steps.append([item, taken[item]])
        taken[item] += 1
    return steps


def gen_order(draws: Draws, outputs: Sequence[Json]) -> str | list[list[int]] | None:
    """None (sequential), "round-robin" (when two calls or more) or an explicit interleaving."""
    if len(outputs) < 2:
        return None
    kind = _pick(draws, ("sequential", "round-robin", "explicit"))
    if kind == "round-robin" and sum(o["type"] == "function_call" for o in outputs) > 1:
        return "round-robin"
    if kind != "explicit":
        return None
    counts = [len(o["chunk"]["fragments"]) for o in outputs]
    steps = gen_interleaving(draws, [o["type"] != "function_call" for o in outputs], counts)
    return None if steps == [[i, j] for i, n in enumerate(counts) for j in range(n)] else steps


def gen_output(draws: Draws, quirks: bool) -> Json:
    """An output item: a function call (half the time), a text or a reasoning item."""
    kind = _pick(draws, ("function_call", "function_call", "text", "reasoning"))
    return gen_call(draws, quirks) if kind == "function_call" else gen_chunked(draws, kind)


def gen_scenario(draws: Draws, *, quirks: bool = True) -> Json:
    """One scenario entry: 1-MAX_OUTPUTS output items (mostly calls), their order, the request, the expectation."""
    outputs = draws.items(lambda d: gen_output(d, quirks), 1, MAX_OUTPUTS)
    for index, item in enumerate(outputs):
        if item.get("call_id"):  # given ids are unique (a repeated id is a quirk of its own)
            item["call_id"] = f"{item['call_id']}_{index}"
    order = gen_order(draws, outputs)
    request: Json = {"input": [{"role": "user", "text": draws.text(MAX_TEXT_CHARS)}]}
    instructions = draws.text(MAX_TEXT_CHARS).strip() if draws.integer(0, 1) else ""
    if instructions:  # surrounding whitespace: gateways may trim it, and an empty system prompt is an API error
        request["instructions"] = instructions
    names = list(dict.fromkeys(o["name"] for o in outputs if o["type"] == "function_call"))
    if names:
        request["tools"] = [{"name": n, "description": f"Tool {n}.", "parameters": {"type": "object"}} for n in names]
    parallel = draws.integer(0, 2)
    if parallel:
        request["parallel_tool_calls"] = parallel == 1
    return named_scenario(outputs, order, request)


@functools.cache
def _json_objects() -> SearchStrategy[Json]:
    from hypothesis import strategies as st

    def text(max_size: int) -> SearchStrategy[str]:
        return st.lists(st.sampled_from(CHARS), max_size=max_size).map("".join)

    scalars = st.one_of(text(10), st.integers(-(10**6), 10**6), st.booleans(), st.none(),
                        st.floats(-1e9, 1e9, allow_nan=False, allow_infinity=False))
    values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text(6), inner,
                                                                                               max_size=3),
                          max_leaves=5)
    return st.dictionaries(text(6), values, max_size=4)


class _HypothesisDraws:
    """`Draws` from a hypothesis composite's `draw`."""

    def __init__(self, draw: DrawFn) -> None:
        self._draw = draw

    def integer(self, low: int, high: int) -> int:
        from hypothesis import strategies as st

        return self._draw(st.integers(low, high))

    def text(self, max_size: int, *, min_size: int = 0, alphabet: str = CHARS) -> str:
        from hypothesis import strategies as st

        return "".join(self._draw(st.lists(st.sampled_from(alphabet), min_size=min_size, max_size=max_size)))

    def cuts(self, length: int, most: int) -> list[int]:
        from hypothesis import strategies as st

        return sorted(self._draw(st.sets(st.integers(1, length - 1), max_size=min(length - 1, most))))

    def json_object(self) -> Json:
        return self._draw(_json_objects())

    def items(self, build: Callable[[Draws], T], min_size: int, max_size: int) -> list[T]:
        from hypothesis import strategies as st

        @st.composite
        def one(draw: DrawFn) -> T:
            return build(_HypothesisDraws(draw))

        return self._draw(st.lists(one(), min_size=min_size, max_size=max_size))


def scenario_documents(*, quirks: bool = True) -> SearchStrategy[Json]:
    """Scenario entries within schemas/scenario.schema.json, their `expect` derived from the output (`gen_scenario`);
    `quirks` adds missing call ids and the chat and Responses quirks."""
    from hypothesis import strategies as st

    @st.composite
    def scenarios(draw: DrawFn) -> Json:
        return gen_scenario(_HypothesisDraws(draw), quirks=quirks)

    return scenarios()


# -- the scenario document ----------------------------------------------------------------------------------------


def expect_of(outputs: Sequence[Mapping[str, Any]]) -> Json:
    """What a correct implementation yields for these outputs: every call's name and parsed arguments in output
    order, the text items joined, status completed."""
    calls = [{"name": o["name"], "arguments": json.loads(o["arguments"])}
             for o in outputs if o["type"] == "function_call"]
    text = "".join(o["text"] for o in outputs if o["type"] == "text")
    return {"status": "completed", "text": text, "tool_calls": calls}


def _tags(outputs: Sequence[Mapping[str, Any]], order: object) -> list[str]:
    calls = [o for o in outputs if o["type"] == "function_call"]
    tags = ["fuzz"]
    tags += ["tool-call"] if calls else []
    tags += ["text"] if any(o["type"] == "text" for o in outputs) else []
    tags += ["parallel"] if len(calls) > 1 else []
    tags += ["interleaved"] if order is not None else []
    escaped = any("\\u" in o.get("arguments", "") for o in calls)
    tags += ["unicode"] if escaped or not json.dumps(outputs, ensure_ascii=False).isascii() else []
    quirky = any(q in c for c in calls for q in ("name_chunk", "id_on", "name_on_later", "arguments_before_name",
                                                  "arguments_in_done_only"))
    tags += ["quirk"] if quirky or any(c.get("call_id", "") is None for c in calls) else []
    return tags


def _description(outputs: Sequence[Mapping[str, Any]], order: object) -> str:
    calls = sum(o["type"] == "function_call" for o in outputs)
    texts = sum(o["type"] != "function_call" for o in outputs)
    fragments = sum(len(o["chunk"]["fragments"]) for o in outputs)
    how = "sequential" if order is None else order if isinstance(order, str) else "interleaved"
    return f"generated: {calls} call(s), {texts} text or reasoning item(s), {fragments} fragment(s), {how}"


def named_scenario(outputs: Sequence[Json], order: str | list[list[int]] | None, request: Json) -> Json:
    """The scenario entry, its id derived from its content (`fuzz_<hash>`): equal scenarios get equal ids."""
    body: Json = {"description": _description(outputs, order), "tags": _tags(outputs, order), "output": list(outputs)}
    if order is not None:
        body["order"] = order
    body["request"] = request
    body["expect"] = expect_of(outputs)
    digest = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:12]
    return {"id": f"fuzz_{digest}", **body}


def scenario_file(scenario: Mapping[str, Any], feature: str, *, description: str | None = None,
                  comment: str | None = None) -> Json:
    """A scenario file holding one scenario (its `feature` must equal the file's name without .json)."""
    doc: Json = {"$schema": _SCHEMA_URL, "feature": feature,
                 "description": description or "A scenario generated by callproof fuzz."}
    if comment:
        doc["comment"] = comment
    doc["scenarios"] = [dict(scenario)]
    return doc


def _dump(doc: Mapping[str, Any]) -> str:
    return json.dumps(doc, ensure_ascii=False, indent=2) + "\n"


def parse_generated(scenario: Mapping[str, Any]) -> Scenario:
    """The generated scenario through the loader users' files go through (schema and invariants)."""
    from callproof.harness.scenario import parse_scenario_file

    return parse_scenario_file(_dump(scenario_file(scenario, _FEATURE)), f"{_FEATURE}.json")[0]


# -- running ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FuzzOptions:
    """A fuzz session: the IUT and rules (`config`, as for `callproof run`), its bounds, its seed, where a failing
    scenario goes, and whether quirks are generated."""

    config: RunConfig
    max_examples: int = 100
    seconds: float = 60.0
    seed: int = 0
    out: Path = Path()
    quirks: bool = True


@dataclass(frozen=True, slots=True)
class FuzzFailure:
    """The failure of one scenario: the first failed MUST rule (or `error`: the IUT did not answer) in case order."""

    rule: str
    message: str
    case: str
    scenario: Mapping[str, Any]
    also: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class FuzzOutcome:
    """`examples` generated (until the first failure, if any); `found_after` seconds to the first failure;
    `failure` is the shrunk one (`replayed`: it failed again when hypothesis replayed it)."""

    examples: int
    seconds: float
    seed: int
    failure: FuzzFailure | None = None
    found_after: float = 0.0
    shrink_runs: int = 0
    replayed: bool = True


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
            self._runs.pop(scenario.id, None)  # a replay runs the IUT again
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
    from hypothesis import HealthCheck, Phase, Verbosity, given, settings
    from hypothesis import seed as hypothesis_seed

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

    Raises `IUTError` when the IUT cannot be run at all."""
    from hypothesis.configuration import set_hypothesis_home_dir
    from hypothesis.errors import Flaky

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
        finally:
            set_hypothesis_home_dir(None)
    seconds = time.monotonic() - session.start
    return FuzzOutcome(session.examples, seconds, options.seed, failure, session.found_after or 0.0,
                       session.shrink_runs, replayed)


# -- the failure as a scenario file -----------------------------------------------------------------------------


def failure_file(failure: FuzzFailure, options: FuzzOptions) -> tuple[Path, str]:
    """Where the failure's scenario goes (`<out>/fuzz_<rule>_<hash>.json`) and the file's text, checked by the
    scenario loader under that name."""
    from callproof.harness.scenario import parse_scenario_file

    sid = str(failure.scenario["id"])
    feature = f"fuzz_{failure.rule.lower()}_{sid.removeprefix('fuzz_')}"
    path = options.out / f"{feature}.json"
    target = options.config.target_option()
    comment = (f"Found by callproof fuzz (seed {options.seed}) against {target}: {failure.rule} on case "
               f"{failure.case}: {failure.message}. Replay: callproof run {target} --scenarios {path} -k {sid}")
    doc = scenario_file(failure.scenario, feature, comment=comment,
                        description=f"A minimal scenario callproof fuzz found failing {failure.rule}.")
    text = _dump(doc)
    parse_scenario_file(text, str(path))
    return path, text


def _report(outcome: FuzzOutcome, options: FuzzOptions) -> int:
    if outcome.failure is None:
        print(f"callproof fuzz: no failure found in {outcome.examples} examples / {outcome.seconds:.1f} s "
              f"(seed {outcome.seed})")
        return EXIT_OK
    failure = outcome.failure
    path, text = failure_file(failure, options)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        print(f"callproof fuzz: cannot write {path}: {exc.strerror or exc}; choose another --out", file=sys.stderr)
        return EXIT_USAGE
    calls = sum(o["type"] == "function_call" for o in failure.scenario["output"])
    print(f"callproof fuzz: failure found after {outcome.examples} examples ({outcome.found_after:.1f} s); shrunk in "
          f"{outcome.shrink_runs} runs to {len(failure.scenario['output'])} output item(s), {calls} call(s) "
          f"({outcome.seconds:.1f} s in all, seed {outcome.seed})")
    print(f"  rule:     {failure.rule}" + (f" (also {', '.join(failure.also)})" if failure.also else ""))
    print(f"  case:     {failure.case}")
    print(f"  message:  {failure.message}")
    print(f"  scenario: {path}")
    print(f"  replay:   callproof run {options.config.target_option()} --scenarios {path} -k {failure.scenario['id']}")
    if not outcome.replayed:
        print("callproof fuzz: warning: the shrunk scenario passed when replayed once: the IUT's verdict on it is "
              "not deterministic", file=sys.stderr)
    return EXIT_FAILED


# -- command line -----------------------------------------------------------------------------------------------


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text}")
    return value


def add_fuzz_parser(sub: Any) -> None:
    fuzz_parser = sub.add_parser(
        "fuzz", help="generate scenarios against a gateway or client and shrink a failure to a scenario file",
        description="Generate scenarios (chunk boundaries, interleavings, call ids, unicode, sizes) with hypothesis, "
                    "run each through the rules of `callproof run`, and shrink the first failure to a minimal "
                    "scenario file for --scenarios. Exit 0: no failure found; 1: a failure (file written); 2: usage "
                    "or setup error.",
    )
    iut = fuzz_parser.add_mutually_exclusive_group(required=True)
    iut.add_argument("--launch", metavar="CMD", help="gateway command with {upstream}, {upstream_root} and {port}")
    iut.add_argument("--target", metavar="URL", help="front URL of a gateway already running (see --mock-port)")
    iut.add_argument("--app", metavar="MODULE:ATTR", help="ASGI gateway app, served in-process on uvicorn")
    iut.add_argument("--client-cmd", metavar="CMD", help="client adapter program (docs/adapters.md)")
    iut.add_argument("--client", metavar="MODULE:FUNCTION", help="in-process client adapter function")
    fuzz_parser.add_argument("--upstream-dialect", choices=("chat", "responses", "anthropic"), default="chat",
                             help="dialect the mock serves the gateway (default chat)")
    fuzz_parser.add_argument("--front-url", default="http://127.0.0.1:{port}/v1/responses", metavar="TEMPLATE",
                             help="where a launched gateway serves the front (default %(default)s)")
    fuzz_parser.add_argument("--ready-url", metavar="TEMPLATE", help="URL answering 2xx once a launched gateway is "
                             "ready")
    fuzz_parser.add_argument("--mock-port", type=int, default=0, metavar="PORT",
                             help="port of the mock (default: free; needed with --target)")
    fuzz_parser.add_argument("--model", default="callproof-model", metavar="NAME", help="model name sent to the IUT")
    fuzz_parser.add_argument("--max-examples", type=_positive_int, default=100, metavar="N",
                             help="scenarios to generate at most (default 100)")
    fuzz_parser.add_argument("--time", type=_positive_float, default=60.0, metavar="SECONDS",
                             help="stop generating after this long (default 60; shrinking a failure goes on)")
    fuzz_parser.add_argument("--seed", type=int, metavar="N", help="replay the examples of an earlier run "
                             "(default: a random seed, printed)")
    fuzz_parser.add_argument("--out", type=Path, default=Path(), metavar="DIR",
                             help="folder for the scenario file of a failure (default: the current folder)")
    fuzz_parser.add_argument("--profile", choices=PROFILES, default="openai", help="rules and schema variant")
    fuzz_parser.add_argument("--case-timeout", type=_positive_float, default=30.0, metavar="S",
                             help="seconds per case (default 30)")
    fuzz_parser.add_argument("--no-quirks", dest="quirks", action="store_false",
                             help="generate only upstream streams that follow their spec (no split names, missing "
                                  "ids, ...): for pass-through proxies")


def _options(args: argparse.Namespace) -> FuzzOptions:
    config = RunConfig(
        launch=args.launch, target=args.target, app=args.app, client_cmd=args.client_cmd, client=args.client,
        upstream_dialect=cast(Dialect, args.upstream_dialect), front_url=args.front_url, ready_url=args.ready_url,
        case_timeout=args.case_timeout, model=args.model, profile=cast(Profile, args.profile),
        mock_port=args.mock_port,
    )
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    return FuzzOptions(config, args.max_examples, args.time, seed, args.out, args.quirks)


def fuzz_command(args: argparse.Namespace) -> int:
    """`callproof fuzz`: 0 no failure found, 1 a failure (its scenario file written), 2 usage or setup error."""
    options = _options(args)
    if options.out.exists() and not options.out.is_dir():
        print(f"callproof fuzz: --out {options.out} is a file; give a folder", file=sys.stderr)
        return EXIT_USAGE
    problem = options.config.problem()
    if problem is not None:
        print(f"callproof fuzz: {problem}", file=sys.stderr)
        return EXIT_USAGE
    print(f"callproof fuzz: up to {options.max_examples} examples or {options.seconds:g} s, seed {options.seed}",
          flush=True)
    from hypothesis.errors import HypothesisException

    try:
        outcome = fuzz(options)
    except IUTError as exc:
        print(f"callproof fuzz: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except HypothesisException as exc:
        print(f"callproof fuzz: the search stopped: {exc}", file=sys.stderr)
        return EXIT_USAGE
    return _report(outcome, options)
