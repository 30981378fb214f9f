"""Gateway fakes whose error answers expose their internals (GW-FAULT-006, docs/spec/contracts.md §7.8.2; CWE-209),
listed in gateways.py's `DEFECTS`. Each answers an upstream HTTP error as the reference gateway does (the same
status, the front's error shape, Retry-After kept) and adds what real gateways were seen to add:

- `node_stack_in_errors`: the Responses front's error body carries the `stack` of the exception its handler caught,
  Express-style (`{"error": {"message", "type", ..., "stack"}}`): a Node stack trace naming the absolute paths of
  the gateway's install (`at Object.<anonymous> (/home/app/node_modules/...)`);
- `python_traceback_in_errors`: the Chat upstream reader answers with the traceback of the exception it caught
  (`traceback.format_exc()` of httpx's `raise_for_status()`, the real one: this interpreter's paths) as the message.
"""

from __future__ import annotations

import traceback
from dataclasses import replace
from typing import Any

import httpx

from examples.gateway import ChatUpstream, Front, Json, ResponsesFront, Upstream, UpstreamHTTPError

__all__ = ["EXPOSURE_DEFECTS", "NODE_STACK", "NodeStackInErrors", "PythonTracebackInErrors"]

#: The stack of a Node gateway's handler that failed on an upstream error, as Node prints `error.stack`.
NODE_STACK = (
    "TypeError: Cannot read properties of undefined (reading 'choices')\n"
    "    at Object.<anonymous> (/home/app/node_modules/@llm-gw/core/dist/providers/openai/chat.js:214:37)\n"
    "    at Generator.next (<anonymous>)\n"
    "    at fulfilled (/home/app/node_modules/@llm-gw/core/dist/providers/openai/chat.js:5:58)\n"
    "    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)"
)


class NodeStackInErrors(ResponsesFront):
    """node_stack_in_errors: the front's error body carries a Node stack trace with absolute install paths in
    `error.stack` (GW-FAULT-006)."""

    def error_body(self, error: UpstreamHTTPError) -> Json:
        body = super().error_body(error)
        body["error"]["stack"] = NODE_STACK
        return body


class PythonTracebackInErrors(ChatUpstream):
    """python_traceback_in_errors: answers an upstream HTTP error with the Python traceback of the exception it
    caught as `error.message` (GW-FAULT-006)."""

    def http_error(self, response: httpx.Response, content: bytes) -> UpstreamHTTPError:
        error = super().http_error(response, content)
        try:
            response.raise_for_status()
        except httpx.HTTPStatusError:
            return replace(error, message=traceback.format_exc())
        return error


EXPOSURE_DEFECTS: dict[str, type[Front[Any]] | type[Upstream]] = {
    "node_stack_in_errors": NodeStackInErrors, "python_traceback_in_errors": PythonTracebackInErrors}
