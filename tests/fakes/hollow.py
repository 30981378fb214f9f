"""Hollow gateways: fronts that answer a request without a stream callproof can judge, for the tests that prove
no such answer passes anything (issue 12, "no verdict without evidence"). Stdlib only, so they start at once.

    python -m tests.fakes.hollow --defect html --port N

`--defect` (see DEFECTS; each is a way to answer without a judgeable stream):

- `html`: HTTP 502 `text/html`, an nginx error page (ignores the request);
- `html200`: the same page with status 200 (a proxy's landing page in front of the gateway);
- `stall`: a 200 `text/event-stream` with `response.created`, then nothing, the connection held open;
- `noise`: a 200 `text/event-stream` of `--megabytes` (default 50) random bytes, then the end;
- `empty`: a 200 `text/event-stream` with an empty body;
- `json`: a 200 `application/json` `{}` to a stream request.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DEFECTS = ("html", "html200", "stall", "noise", "empty", "json")
NGINX = (b"<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1>"
         b"</center>\r\n<hr><center>nginx/1.25.3</center>\r\n</body>\r\n</html>\r\n")
CREATED = {"type": "response.created", "sequence_number": 0, "response": {
    "id": "resp_hollow", "object": "response", "created_at": 0, "status": "in_progress", "model": "m", "output": []}}


def handler(answer: str, megabytes: float) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:  # quiet
            return

        def _head(self, status: int, content_type: str, length: int | None) -> None:
            self.send_response(status)
            self.send_header("content-type", content_type)
            if length is None:
                self.send_header("connection", "close")
            else:
                self.send_header("content-length", str(length))
            self.end_headers()

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length", "0")))
            if answer in ("html", "html200"):
                self._head(502 if answer == "html" else 200, "text/html", len(NGINX))
                self.wfile.write(NGINX)
            elif answer == "json":
                self._head(200, "application/json", 2)
                self.wfile.write(b"{}")
            elif answer == "empty":
                self._head(200, "text/event-stream", 0)
            elif answer == "stall":
                self._head(200, "text/event-stream", None)
                self.wfile.write(f"event: response.created\ndata: {json.dumps(CREATED)}\n\n".encode())
                self.wfile.flush()
                time.sleep(3600)
            else:
                self._head(200, "text/event-stream", None)
                left = int(megabytes * 1_000_000)
                while left > 0:
                    block = os.urandom(min(left, 1 << 16))
                    self.wfile.write(block)
                    left -= len(block)
            self.close_connection = True

    return Handler


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--defect", choices=DEFECTS, required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--megabytes", type=float, default=50.0)
    parser.add_argument("--upstream", help="ignored: a hollow gateway never calls its upstream")
    args = parser.parse_args(argv)
    server = ThreadingHTTPServer(("127.0.0.1", args.port), handler(args.defect, args.megabytes))
    server.daemon_threads = True
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
