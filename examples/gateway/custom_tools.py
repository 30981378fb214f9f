"""Custom (freeform) tools toward an upstream without them (docs/spec/items.md, "The reference gateway").

A custom tool's call carries raw text, not JSON arguments. The Responses API has them; a Chat Completions stream
and Anthropic Messages cannot carry a custom call. Toward those upstreams the gateway either refuses the request
(`--custom-tools refuse`, the default: HTTP 400 in the front's error shape, before any upstream request) or, under
`--custom-tools convert` (the run policy `custom-tools=convert`), offers a function tool of the same name with one
string parameter `input` and turns its call back into a custom call whose input is that string, raw (`CallsBack`):
never a function call with JSON-wrapped input at the front.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field, replace

from .model import (
    ArgumentsDelta,
    Call,
    CallDone,
    CallStart,
    Event,
    Finish,
    Part,
    Request,
    Result,
    Untranslatable,
    UpstreamError,
)

__all__ = ["CONVERTED_PARAMETERS", "ENV", "MODES", "CallsBack", "custom_tools_mode", "offered"]

#: `--custom-tools` values: refuse (default) | convert.
MODES = ("refuse", "convert")
#: The environment variable that sets the mode when the command line does not (the ASGI app, test fakes).
ENV = "CALLPROOF_GATEWAY_CUSTOM_TOOLS"
#: The parameters of the function tool that stands for a custom tool under `convert`.
CONVERTED_PARAMETERS = {
    "type": "object",
    "properties": {"input": {"type": "string", "description": "The raw input of the tool (free text, not JSON)."}},
    "required": ["input"], "additionalProperties": False,
}


def custom_tools_mode(given: str | None = None) -> str:
    """The mode: `given`, else $CALLPROOF_GATEWAY_CUSTOM_TOOLS, else refuse; ValueError for another value."""
    mode = given or os.environ.get(ENV) or "refuse"
    if mode not in MODES:
        raise ValueError(f"--custom-tools takes {' or '.join(MODES)}, got {mode!r}")
    return mode


def offered(request: Request, dialect: str, mode: str) -> Request:
    """`request` as an upstream without custom tools (`dialect`) can take it: unchanged when it has none; under
    `convert` its custom tools become function tools (`CONVERTED_PARAMETERS`) and earlier custom calls function
    calls with `{"input": ...}` arguments; under `refuse`, Untranslatable naming the tools."""
    custom = [tool.name for tool in request.tools if tool.kind == "custom"]
    earlier = [part.name for part in request.history if isinstance(part, Call) and part.kind == "custom"]
    if not custom and not earlier:
        return request
    if mode != "convert":
        names = ", ".join(sorted(set(custom + earlier)))
        raise Untranslatable(
            f"custom tool {names}: the {dialect} upstream has no custom (freeform) tools and its stream cannot carry "
            "a custom tool call; this gateway refuses rather than send it as a function tool (start the gateway "
            "with --custom-tools convert to offer it as a function tool with one string parameter `input`)")
    tools = [replace(tool, kind="function", parameters=CONVERTED_PARAMETERS, format=None) if tool.kind == "custom"
             else tool for tool in request.tools]
    return replace(request, tools=tools, history=[_converted(part) for part in request.history])


def _converted(part: Part) -> Part:
    if isinstance(part, Call) and part.kind == "custom":
        return Call(part.id, part.name, json.dumps({"input": part.arguments}, ensure_ascii=False))
    if isinstance(part, Result) and part.kind == "custom":
        return replace(part, kind="function")
    return part


@dataclass(eq=False)
class CallsBack:
    """One answer's calls of converted custom tools (`names`), turned back into custom calls: the call starts as a
    custom call at once; its JSON arguments are held until the call ends (its `CallDone`, or the `Finish`), then
    its `input` string goes on whole, raw. Arguments that are not `{"input": "<string>"}` fail the answer."""

    names: frozenset[str]
    held: dict[int, str] = field(default_factory=dict)  # the converted calls' arguments so far, by key
    ended: set[int] = field(default_factory=set)

    def see(self, event: Event) -> list[Event]:
        if isinstance(event, CallStart) and event.kind == "function" and event.name in self.names:
            self.held[event.key] = ""
            return [replace(event, kind="custom")]
        if isinstance(event, ArgumentsDelta) and event.key in self.held:
            self.held[event.key] += event.fragment
            return []
        if isinstance(event, CallDone) and event.key in self.held and event.key not in self.ended:
            return [*self.release(event.key, cut=False), event]
        if isinstance(event, Finish):
            pending = [key for key in self.held if key not in self.ended]
            cut = event.reason != "stop"
            return [*(e for key in pending for e in self.release(key, cut=cut)), event]
        return [event]

    def release(self, key: int, *, cut: bool) -> list[Event]:
        """The input of converted call `key`; a cut turn's call whose arguments are not whole gets none."""
        self.ended.add(key)
        text = self.held[key]
        try:
            value = json.loads(text)
        except ValueError:
            value = None
        if isinstance(value, dict) and isinstance(value.get("input"), str):
            return [ArgumentsDelta(key, value["input"])] if value["input"] else []
        if cut:
            return []
        shown = text if len(text) <= 200 else text[:200] + "..."
        raise UpstreamError("bad_upstream_response", f"the upstream's call of the converted custom tool (call "
                            f"{key}) has arguments {shown!r}, not {{\"input\": \"<text>\"}}: no input to pass on")
