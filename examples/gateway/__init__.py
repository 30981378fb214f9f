"""A reference gateway: serves the OpenAI Responses API (`POST /v1/responses`), Chat Completions
(`POST /v1/chat/completions`) and Anthropic Messages (`POST /v1/messages`) at once, in front of an upstream of
any of those dialects, translating each request one way and the upstream's answer back event by event, as it
arrives.

    python -m callproof.examples.gateway --upstream http://127.0.0.1:8000/v1 --port 8080
    python -m callproof.examples.gateway --upstream-dialect anthropic --upstream https://api.anthropic.com/v1

Check it against the callproof mock: callproof run --launch 'python -m callproof.examples.gateway --upstream
{upstream} --port {port}' (add `--upstream-dialect X` to both commands for another upstream, `--front
chat|anthropic` to callproof's for another front), or in-process: callproof run --app
callproof.examples.gateway.asgi:app. From a clone it is also `examples.gateway`.

Product shapes. Every front-upstream pair goes through one neutral model (`model`): a front parses its request into
a `Request` and renders `Event`s (text delta, call start, argument delta, call done, usage, finish; refusal,
annotation, reasoning, and opaque items a Responses front carries on) as its stream; an upstream renders the
`Request` as its body and reads its answer back as `Event`s. Upstream failures are `UpstreamHTTPError` (an HTTP
error: the same status at the front, in the front's error shape, Retry-After kept), `UpstreamError` and
`UpstreamCut` (after the stream began: the front ends in its error form, never in a normal finish). The layout, one
concept a module:

- `model`: the neutral request, events and failures;
- `custom_tools`: custom (freeform) tools toward an upstream without them, refused or (`--custom-tools convert`)
  offered as a function tool and turned back (docs/spec/items.md §6);
- `wire`: SSE reading and writing, ids;
- `fronts/`: `responses`, `chat`, `anthropic` (`Front` in `fronts/base` drives a turn through their steps), and
  `websocket`: the Responses API's WebSocket mode on the Responses path (`Connection`: one socket's response in
  flight and last response, docs/spec/gateway-websocket.md);
- `upstreams/`: `chat`, `anthropic`, `responses` (`Upstream` in `upstreams/base`), and `websocket`: the Responses
  upstream over its WebSocket mode (`--upstream-transport websocket`, or a ws:// `--upstream`);
- `app`: the HTTP app (`Gateway`, `create_app`) and the command line (`main`).

Fronts and upstreams are built from small methods so that a subclass can change one behaviour at a time
(tests/fakes/gateways.py breaks them on purpose, one defect per subclass); a front or upstream object is
stateless, everything one answer accumulates lives in a per-request object, never shared between requests.
"""

from .app import FRONTS, UPSTREAMS, Gateway, create_app, main, parser, serve
from .fronts import AnthropicFront, ChatFront, Front, RequestShapeError, ResponsesFront
from .model import Json, Request, UpstreamCut, UpstreamError, UpstreamHTTPError
from .upstreams import AnthropicUpstream, ChatUpstream, ResponsesUpstream, Upstream

__all__ = [
    "FRONTS", "UPSTREAMS", "AnthropicFront", "AnthropicUpstream", "ChatFront", "ChatUpstream", "Front", "Gateway",
    "Json", "Request", "RequestShapeError", "ResponsesFront", "ResponsesUpstream", "Upstream", "UpstreamCut",
    "UpstreamError", "UpstreamHTTPError", "create_app", "main", "parser", "serve",
]
