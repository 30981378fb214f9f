"""Headless Chromium driven over the Chrome DevTools Protocol, with no dependency: `--remote-debugging-pipe` speaks
the protocol as NUL-terminated JSON messages on file descriptors 3 (commands in) and 4 (replies and events out),
so neither a websocket client nor a free port is needed. One page (a flattened target session) per `Browser`.

Also a minimal PNG reader (8-bit RGB/RGBA, non-interlaced: what Chromium writes) to inspect screenshots without
Pillow: the test needs only pixels, and pure Python decodes a clipped screenshot in well under a second.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import select
import shutil
import signal
import struct
import subprocess
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

#: Every wait of the driver is bounded by this many seconds (the browser's start included).
TIMEOUT_S = 60.0
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-extensions",
         "--no-default-browser-check", "--hide-scrollbars", "--mute-audio", "--remote-debugging-pipe")


class BrowserError(RuntimeError):
    """The browser did not start, died, timed out or answered a command with an error."""


def find_chromium() -> str | None:
    """The Chromium executable on PATH (Debian's `chromium`, or the `chromium-browser` of other distributions)."""
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    return None


class Browser:
    """A headless Chromium with one page; `events` keeps every protocol event of the page, in order."""

    def __init__(self, executable: str, profile: Path, *, width: int = 1280, height: int = 900) -> None:
        profile.mkdir(parents=True, exist_ok=True)
        to_browser_r, self._out = os.pipe()  # commands: we write, Chromium reads fd 3
        self._in, from_browser_w = os.pipe()  # replies: Chromium writes fd 4, we read
        # bash puts the pipe ends on 3 and 4 (copies above 9 first, so neither clobbers the other).
        high = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in (to_browser_r, from_browser_w)]
        os.close(to_browser_r)
        os.close(from_browser_w)
        self.stderr_path = profile / "stderr.log"
        self._stderr = self.stderr_path.open("wb")
        command = [executable, *FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}", "about:blank"]
        self._proc = subprocess.Popen(
            ["bash", "-c", f'exec "$@" 3<&{high[0]} 4>&{high[1]} {high[0]}<&- {high[1]}>&-', "chromium", *command],
            stdin=subprocess.DEVNULL, stdout=self._stderr, stderr=self._stderr, pass_fds=high, start_new_session=True,
        )
        for fd in high:
            os.close(fd)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []
        self._session = ""
        try:
            target = self.send("Target.createTarget", url="about:blank", session=False)["targetId"]
            self._session = self.send("Target.attachToTarget", targetId=target, flatten=True,
                                      session=False)["sessionId"]
            for domain in ("Page", "Runtime", "Log"):
                self.send(f"{domain}.enable")
            self.send("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1,
                      mobile=False)
        except BaseException:
            self.close()
            raise

    # -- the protocol ------------------------------------------------------------------------------------------

    def _read(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError(f"no answer from Chromium in {TIMEOUT_S:.0f} s{self._tail()}")
            ready, _, _ = select.select([self._in], [], [], min(left, 1.0))
            if ready:
                chunk = os.read(self._in, 1 << 20)
                if not chunk:
                    raise BrowserError(f"Chromium closed the DevTools pipe (exit {self._proc.poll()}){self._tail()}")
                self._buffer += chunk
            elif self._proc.poll() is not None:
                raise BrowserError(f"Chromium exited {self._proc.returncode}{self._tail()}")
        message, _, self._buffer = self._buffer.partition(b"\0")
        parsed: dict[str, Any] = json.loads(message)
        return parsed

    def send(self, method: str, *, session: bool = True, **params: Any) -> dict[str, Any]:
        """One command; its result, events received meanwhile appended to `events`."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if session and self._session:
            message["sessionId"] = self._session
        os.write(self._out, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            reply = self._read(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error']}")
                result: dict[str, Any] = reply.get("result", {})
                return result
            if "method" in reply:
                self.events.append(reply)

    def wait_for(self, method: str, start: int = 0) -> dict[str, Any]:
        """The first event `method` at or after `events[start]`, reading more until it comes."""
        deadline = time.monotonic() + TIMEOUT_S
        seen = start
        while True:
            for event in self.events[seen:]:
                if event["method"] == method:
                    return event
            seen = len(self.events)
            reply = self._read(deadline)
            if "method" in reply:
                self.events.append(reply)

    # -- the page ----------------------------------------------------------------------------------------------

    def open(self, url: str) -> None:
        """Navigate and wait for the load event (the page's own script has run by then)."""
        start = len(self.events)
        result = self.send("Page.navigate", url=url)
        if result.get("errorText"):
            raise BrowserError(f"{url}: {result['errorText']}")
        self.wait_for("Page.loadEventFired", start)

    def js(self, expression: str) -> Any:
        """The value of `expression` in the page (DevTools evaluation: the page's CSP does not apply to it)."""
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression!r} threw: {result['exceptionDetails']}")
        return result["result"].get("value")

    def click(self, selector: str) -> None:
        """A real mouse click (pressed and released) at the centre of the first element matching `selector`,
        scrolled into view first: it fails if the element is hidden or covered."""
        box = self.js(f"""(() => {{
            const el = document.querySelector({json.dumps(selector)});
            if (!el) return null;
            el.scrollIntoView({{block: "center"}});
            const r = el.getBoundingClientRect();
            const x = r.left + r.width / 2, y = r.top + r.height / 2;
            const hit = document.elementFromPoint(x, y);
            return {{x, y, w: r.width, h: r.height, hit: !!hit && (hit === el || el.contains(hit))}};
        }})()""")
        if not box:
            raise BrowserError(f"no element {selector!r}")
        if not (box["w"] and box["h"] and box["hit"]):
            raise BrowserError(f"{selector!r} is not clickable: {box}")
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", type=kind, x=box["x"], y=box["y"], button="left", clickCount=1)

    def type_text(self, text: str) -> None:
        """Text typed into the focused element, as an input method would (an `input` event fires)."""
        self.send("Input.insertText", text=text)

    def screenshot(self, path: Path, selector: str | None = None) -> Path:
        """A PNG of the viewport, or of the box of the first element matching `selector` (scrolled into view)."""
        params: dict[str, Any] = {"format": "png"}
        if selector:
            box = self.js(f"""(() => {{
                const el = document.querySelector({json.dumps(selector)});
                el.scrollIntoView({{block: "start"}});
                const r = el.getBoundingClientRect();
                return {{x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height}};
            }})()""")
            params["clip"] = {**box, "scale": 1}
            params["captureBeyondViewport"] = True
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(self.send("Page.captureScreenshot", **params)["data"]))
        return path

    def problems(self, start: int = 0) -> list[str]:
        """The page's console errors and warnings, uncaught exceptions and browser log entries (CSP refusals among
        them) in `events[start:]`, one line each."""
        out: list[str] = []
        for event in self.events[start:]:
            params = event.get("params", {})
            if event["method"] == "Runtime.exceptionThrown":
                details = params["exceptionDetails"]
                out.append(f"uncaught: {details.get('exception', {}).get('description') or details.get('text')}")
            elif event["method"] == "Runtime.consoleAPICalled" and params["type"] in ("error", "warning", "assert"):
                out.append(f"console.{params['type']}: " + " ".join(
                    str(a.get("value", a.get("description", ""))) for a in params.get("args", [])))
            elif event["method"] == "Log.entryAdded" and params["entry"]["level"] in ("error", "warning"):
                entry = params["entry"]
                out.append(f"{entry['source']} {entry['level']}: {entry['text']}")
        return out

    # -- the end -----------------------------------------------------------------------------------------------

    def _tail(self) -> str:
        self._stderr.flush()
        text = self.stderr_path.read_text(encoding="utf-8", errors="replace")[-1500:]
        return f"; its stderr ends:\n{text}" if text.strip() else ""

    def close(self) -> None:
        if self._proc.poll() is None:
            try:
                self.send("Browser.close", session=False)
                self._proc.wait(timeout=10)
            except (BrowserError, OSError, subprocess.TimeoutExpired):
                pass
        if self._proc.poll() is None:
            os.killpg(self._proc.pid, signal.SIGKILL)
            self._proc.wait()
        for fd in (self._in, self._out):
            with contextlib.suppress(OSError):
                os.close(fd)
        self._stderr.close()

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None) -> None:
        self.close()


# -- PNG ---------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Image:
    width: int
    height: int
    channels: int  # 3 (RGB) or 4 (RGBA)
    rows: list[bytes]

    def pixels(self) -> Iterator[tuple[int, int, int]]:
        step = self.channels
        for row in self.rows:
            for x in range(0, len(row), step):
                yield row[x], row[x + 1], row[x + 2]


def read_png(data: bytes) -> Image:
    """Decode an 8-bit RGB or RGBA, non-interlaced PNG (the PNG specification's five scanline filters)."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, header = 8, bytearray(), b""
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
    if depth != 8 or colour not in (2, 6) or interlace:
        raise ValueError(f"unsupported PNG: depth {depth}, colour type {colour}, interlace {interlace}")
    bpp = 3 if colour == 2 else 4
    raw, stride = zlib.decompress(bytes(idat)), width * bpp
    rows: list[bytes] = []
    previous = bytes(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        if kind == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 0xFF
        elif kind == 2:
            line = bytearray((a + b) & 0xFF for a, b in zip(line, previous, strict=True))
        elif kind == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + previous[i]) >> 1)) & 0xFF
        elif kind == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b, c = previous[i], previous[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        elif kind != 0:
            raise ValueError(f"row {y}: unknown PNG filter {kind}")
        rows.append(bytes(line))
        previous = rows[-1]
    return Image(width, height, bpp, rows)
