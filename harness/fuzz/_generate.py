"""Generating a scenario from a sequence of choices (`Draws`): what varies is listed in the package docstring.
Everything here is plain Python; hypothesis supplies the choices (`_strategies`) and shrinks them."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from itertools import pairwise
from typing import Any, Protocol, TypeVar

__all__ = [
    "CHARS",
    "Draws",
    "ID_CHARS",
    "Json",
    "MAX_ARGUMENT_CHARS",
    "MAX_FRAGMENTS",
    "MAX_OUTPUTS",
    "MAX_TEXT_CHARS",
    "NAME_CHARS",
    "expect_of",
    "gen_scenario",
    "named_scenario",
]

Json = dict[str, Any]
T = TypeVar("T")

#: Sizes of a generated scenario: kept small, so each example runs in tens of milliseconds.
MAX_OUTPUTS = 4
MAX_ARGUMENT_CHARS = 200
MAX_FRAGMENTS = 12
MAX_TEXT_CHARS = 40

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
