"""A gateway whose text deltas carry a lone UTF-16 surrogate: `"\\ud83d"` without its pair, valid JSON syntax but
invalid Unicode (what a gateway that splits an escape sequence produces). callproof must report such text as
evidence, escaped, and never crash writing the report (tests/harness/cli/test_run_ends.py).

    python -m tests.fakes.lone_surrogate --upstream http://127.0.0.1:PORT/v1 --port N
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from examples.gateway import Json, ResponsesFront, create_app, parser, serve


class LoneSurrogate(ResponsesFront):
    """Every text delta starts with the escape of a high surrogate, unpaired."""

    def encode_event(self, event: Json) -> bytes:
        if event.get("type") == "response.output_text.delta":
            data = json.dumps(event, separators=(",", ":")).replace('"delta":"', '"delta":"\\ud83d', 1)
            return f"event: {event['type']}\ndata: {data}\n\n".encode()
        return super().encode_event(event)


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    serve(create_app(args.upstream, dialect=args.upstream_dialect, fronts=[LoneSurrogate]), args.host, args.port)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
