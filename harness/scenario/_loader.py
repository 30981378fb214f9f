"""Loading scenarios from JSON files validated by schemas/scenario.schema.json, checked for what a schema cannot
say (fragments that join to their string, valid fragment order, unique ids, known rule ids); errors name the file,
the scenario, the JSON path and the fix. A turn's outputs and their fragments are read by `_turn_outputs`."""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
from collections.abc import Iterable, Mapping
from importlib.resources import files
from pathlib import Path
from typing import Any

import jsonschema

from callproof.harness._types import JSONData
from callproof.harness.catalogue import RULES

from ._legs import Leg, leg_source, requires_of
from ._match import Match, MatchError, compile_match
from ._scenario import ChatEnding, Expect, Fault, Scenario, ScenarioError, Timing, Usage
from ._turn_outputs import fail, read_expected_call, read_output, read_raw_frame, read_steps

__all__ = ["bundled_scenarios", "load_scenarios", "parse_scenario_file"]


@functools.cache
def _schema_validator() -> jsonschema.Draft202012Validator:
    schema = json.loads(files("callproof.schemas").joinpath("scenario.schema.json").read_text(encoding="utf-8"))
    return jsonschema.Draft202012Validator(schema)


def _match(source: str, index: int, raw: Mapping[str, Any] | None) -> Match | None:
    if raw is None:
        return None
    try:
        return compile_match(raw)
    except MatchError as exc:
        raise ScenarioError(f"{source}: $.scenarios[{index}].match.{exc.where}: {exc.message}") from None


def _scenario(source: str, feature: str, index: int, raw: Mapping[str, Any], leg: int | None = None) -> Scenario:
    where = f"scenarios[{index}] ({raw['id']})" + (f".legs[{leg}]" if leg is not None else "")
    if "legs" in raw:
        return _sequence(source, feature, index, raw)
    stem = raw["id"] if leg is None else f"{raw['id']}_{leg}"
    output = tuple(
        read_output(source, f"{where}.output[{i}]", o, f"call_{stem}_{i}") for i, o in enumerate(raw["output"])
    )
    for dialect, rules in raw.get("breaks", {}).items():
        unknown = [r for r in rules if r not in RULES]
        if unknown:
            raise fail(source, f"{where}.breaks.{dialect}", f"unknown rule ids {unknown}",
                       "name rules from `callproof rules`")
    timing = raw.get("timing", {})
    return Scenario(
        id=raw["id"],
        feature=feature,
        description=raw["description"],
        output=output,
        steps=read_steps(source, where, raw.get("order"), output),
        request=_normal_tools(raw["request"]),
        expect=_expect(source, where, raw["expect"]),
        tags=tuple(raw.get("tags", ())),
        spec=raw.get("spec"),
        usage=Usage(**raw.get("usage", {})),
        ending=raw.get("ending", "completed"),
        error=raw.get("error"),
        timing=Timing(**{**timing, "delays_ms": tuple(timing.get("delays_ms", ()))}),
        faults=tuple(
            Fault(f["kind"], float(f.get("probability", 1.0)),
                  {k: v for k, v in f.items() if k not in ("kind", "probability")})
            for f in raw.get("faults", ())
        ),
        raw={d: tuple(read_raw_frame(x) for x in frames) for d, frames in raw.get("raw", {}).items()},
        breaks={d: tuple(rules) for d, rules in raw.get("breaks", {}).items()},
        match=_match(source, index, raw.get("match")),
        raw_body=raw.get("raw_body", {}),
        dialects=tuple(raw.get("dialects", ())),
        chat=ChatEnding(**raw.get("chat", {})),
    )


def _expect(source: str, where: str, expect: Mapping[str, Any]) -> Expect:
    return Expect(
        status=expect["status"],
        text=expect.get("text"),
        tool_calls=tuple(
            read_expected_call(source, f"{where}.expect.tool_calls[{i}]", call)
            for i, call in enumerate(expect.get("tool_calls", ()))
        ),
        http_status=expect.get("http_status"),
        retry_after=expect.get("retry_after"),
        may_fail=bool(expect.get("may_fail", False)),
        may_reject=bool(expect.get("may_reject", False)),
        refusal=expect.get("refusal"),
    )


def _sequence(source: str, feature: str, index: int, raw: Mapping[str, Any]) -> Scenario:
    """A scenario with legs: each leg loaded as a scenario of its own; the scenario plays as its last leg (with
    its own expect) wherever one answer stands for it."""
    legs = tuple(
        Leg(i, _scenario(source, feature, index, leg_source(raw, leg, i), leg=i), requires_of(leg))
        for i, leg in enumerate(raw["legs"])
    )
    where = f"scenarios[{index}] ({raw['id']})"
    return dataclasses.replace(legs[-1].scenario, description=raw["description"],
                               expect=_expect(source, where, raw["expect"]), legs=legs)


#: What a scenario with legs leaves to its legs.
_BESIDE_LEGS = ("output", "order", "usage", "ending", "error", "timing", "faults", "raw", "raw_body", "breaks")


#: The tool types a request may give besides function tools (schemas/scenario.schema.json#/$defs/builtin_tool).
_BUILTIN_TOOLS = ("web_search", "file_search", "custom", "mcp", "shell", "code_interpreter")


def _tool_hint(doc: JSONData, path: list[str | int]) -> str | None:
    """What to write instead, for a schema error inside a request's tool: a function tool is flat, `{"name",
    "parameters"}` (with `"type": "function"` or without), not Chat's `{"type": "function", "function": {...}}`."""
    at = next((i for i in range(len(path) - 1) if path[i] == "tools" and isinstance(path[i + 1], int)), None)
    if at is None or "request" not in path[:at]:
        return None
    node = doc
    for step in path[: at + 2]:
        node = node[step]
    if not isinstance(node, dict):
        return None
    kind = node.get("type", "function")
    if kind == "function" and isinstance(node.get("function"), dict):
        return ('a function tool is written flat, {"name", "description", "parameters", "strict"} (with "type": '
                '"function" or without): move the fields of "function" up and drop it; the harness builds each '
                "dialect's tool from it")
    if kind not in ("function", *_BUILTIN_TOOLS):
        return (f"{kind!r} is not a tool type: a function tool is {{\"name\", \"parameters\"}} (\"type\": \"function\" "
                f"optional), a built-in tool {{\"type\": {' | '.join(json.dumps(t) for t in _BUILTIN_TOOLS)}, ...}}")
    return None


def _normal_tools(request: Mapping[str, Any]) -> Mapping[str, Any]:
    """The request with each function tool as the harness reads it: without the optional `"type": "function"`
    (a tool with a `type` is a built-in one)."""
    tools = request.get("tools")
    if not isinstance(tools, list) or not any(isinstance(t, dict) and t.get("type") == "function" for t in tools):
        return request
    plain = [{k: v for k, v in t.items() if k != "type"} if t.get("type") == "function" else t for t in tools]
    return {**request, "tools": plain}


#: The digests of the texts the schema found valid in this process: a file read again (the bundled corpus, which every
#: run, mock and plugin of a process loads) is parsed again but not validated again. A text that failed is validated
#: again, and fails again.
_VALID: set[bytes] = set()


def parse_scenario_file(text: str, source: str) -> tuple[Scenario, ...]:
    """The scenarios of one file's text; `source` names it in errors."""
    return _parse(text, source, trusted=False)


def _parse(text: str, source: str, *, trusted: bool) -> tuple[Scenario, ...]:
    """`parse_scenario_file`; a `trusted` text (the bundled corpus, which tests/harness/scenario/test_scenarios.py
    validates file by file against the schema) is not validated again: 0.2 s of CPU at every process's start."""
    if not text.strip():
        raise ScenarioError(f"{source}: the file is empty: a scenario file is a JSON object with feature, "
                            "description and scenarios; see `callproof docs scenario-format`")
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise ScenarioError(f"{source}: not valid JSON: {exc}; fix the syntax (a trailing comma?)") from None
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()
    valid = trusted or digest in _VALID
    error = None if valid else jsonschema.exceptions.best_match(_schema_validator().iter_errors(doc))
    if error is not None:
        where = error.json_path
        path = list(error.absolute_path)
        if len(path) >= 2 and path[0] == "scenarios" and isinstance(path[1], int):
            sid = doc["scenarios"][path[1]].get("id") if isinstance(doc["scenarios"][path[1]], dict) else None
            if isinstance(sid, str):
                where = f"{where} (scenario {sid!r})"
        message = _tool_hint(doc, path) or error.message
        if error.schema is False:  # a playable field beside `legs` (the schema's then-branch)
            node = doc
            for step in path:
                node = node[step]
            extra = [k for k in node if k in _BESIDE_LEGS] if isinstance(node, dict) else []
            message = f"{', '.join(extra) or 'this field'} cannot stand beside legs: move it into the legs"
        raise ScenarioError(
            f"{source}: {where}: {message}; see `callproof docs scenario-format`"
        )
    _VALID.add(digest)
    # `feature` is a label, not the file's name: a file loads under any name (`scenarios import > mine.json`); the
    # bundled corpus names each file after its feature, which its own test checks.
    return tuple(_scenario(source, doc["feature"], i, s) for i, s in enumerate(doc["scenarios"]))


def _collect(sources: Iterable[tuple[str, str]], *, trusted: bool = False) -> dict[str, Scenario]:
    found: dict[str, Scenario] = {}
    origin: dict[str, str] = {}
    for source, text in sources:
        for index, scenario in enumerate(_parse(text, source, trusted=trusted)):
            if scenario.id in found:
                raise ScenarioError(
                    f"{source}: $.scenarios[{index}].id: scenario id {scenario.id!r} is already defined in feature "
                    f"{found[scenario.id].feature!r} ({origin[scenario.id]}); ids are unique across all files: "
                    "rename one of them"
                )
            found[scenario.id] = scenario
            origin[scenario.id] = source
    return found


def _read(paths: Iterable[Path]) -> Iterable[tuple[str, str]]:
    for path in paths:
        for file in sorted(path.rglob("*.json")) if path.is_dir() else [path]:
            try:
                yield str(file), file.read_text(encoding="utf-8")
            except OSError as exc:
                raise ScenarioError(f"{file}: cannot read: {exc.strerror or exc}") from None


def load_scenarios(paths: Iterable[Path]) -> dict[str, Scenario]:
    """Scenarios from files or directories (every *.json inside), by id; ids must be unique."""
    return _collect(_read(paths))


def bundled_scenarios() -> dict[str, Scenario]:
    """The corpus shipped in callproof.scenarios (a new dict each call; the scenarios are immutable)."""
    return dict(_bundled())


@functools.cache
def _bundled() -> dict[str, Scenario]:
    """The bundled corpus, read once a process: every run, mock and plugin of a process asks for it."""
    root = files("callproof.scenarios")
    return _collect(((f"scenarios/{entry.name}", entry.read_text(encoding="utf-8"))
                     for entry in sorted(root.iterdir(), key=lambda e: e.name) if entry.name.endswith(".json")),
                    trusted=True)


def with_bundled(paths: Iterable[Path]) -> dict[str, Scenario]:
    """The bundled corpus plus the user's scenario files, whose ids must not clash with bundled ones (`callproof run`
    and `callproof scenarios` alike). Raises `ScenarioError`."""
    scenarios = bundled_scenarios()
    extra = load_scenarios(paths)
    clash = sorted(set(extra) & set(scenarios))
    if clash:
        raise ScenarioError(f"--scenarios redefine bundled scenario ids {clash}; give your scenarios ids of their own")
    scenarios.update(extra)
    return scenarios
