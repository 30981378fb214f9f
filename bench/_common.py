"""What the benchmarks share: the row format of bench/results.md, starting and stopping server processes, a raw
HTTP/1.1 client that stamps each chunk as it arrives, wrk, and quantiles.

A row: {figure, callproof, reference, ratio, target, met}. `callproof` and `reference` are what was measured, with
units; `reference` is what the figure is measured beside in the same run (a floor, a peer, a naive method), or
"not available: <reason>"; `met` is True/False against `target`, or None for a figure without a target (context).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import selectors
import socket
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypedDict

ROOT = Path(__file__).resolve().parents[1]
START_TIMEOUT = 30.0
IO_TIMEOUT = 30.0


class Row(TypedDict):
    figure: str
    callproof: str
    reference: str
    ratio: str
    target: str
    met: bool | None


def row(figure: str, callproof: str, reference: str, ratio: str, target: str, met: bool | None) -> Row:
    return Row(figure=figure, callproof=callproof, reference=reference, ratio=ratio, target=target, met=met)


def verdict(r: Row) -> str:
    if r["met"] is True:
        return "met"
    if r["met"] is False:
        return "MISSED"
    if r["reference"].startswith("not available") or r["callproof"].startswith("not available"):
        return "n/a"
    return "info"


def ratio(a: float, b: float, digits: int = 2) -> str:
    return f"{a / b:.{digits}f}x" if b else "-"


def n(value: float) -> str:
    """A count or rate with thousands separators."""
    return f"{round(value):,}"


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = q * (len(ordered) - 1)
    low = int(index)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (index - low)


# -- CPUs ------------------------------------------------------------------------------------------------------


def cpu_split() -> tuple[frozenset[int] | None, frozenset[int] | None]:
    """(server CPUs, client CPUs): one each when the machine has two or more, else (None, None)."""
    if not hasattr(os, "sched_getaffinity"):
        return None, None
    available = sorted(os.sched_getaffinity(0))
    if len(available) < 2:
        return None, None
    return frozenset(available[:1]), frozenset(available[1:2])


def pinned(cpus: frozenset[int] | None) -> Callable[[], None] | None:
    if cpus is None:
        return None
    return lambda: os.sched_setaffinity(0, cpus)


@contextlib.contextmanager
def on_cpus(cpus: frozenset[int] | None) -> Iterator[None]:
    """Run this process on `cpus` for the duration (restored afterwards)."""
    if cpus is None or not hasattr(os, "sched_getaffinity"):
        yield
        return
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, cpus)
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


# -- server processes ----------------------------------------------------------------------------------------


@dataclass(slots=True)
class Server:
    name: str
    proc: subprocess.Popen[bytes]
    host: str = "127.0.0.1"
    port: int = 0

    @property
    def root(self) -> str:
        return f"http://{self.host}:{self.port}"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _first_line(proc: subprocess.Popen[bytes], timeout: float) -> str:
    assert proc.stdout is not None
    deadline = time.monotonic() + timeout
    data = b""
    with selectors.DefaultSelector() as selector:
        selector.register(proc.stdout, selectors.EVENT_READ)
        while b"\n" not in data and time.monotonic() < deadline and len(data) < 65536:
            if not selector.select(max(0.0, deadline - time.monotonic())):
                break
            piece = os.read(proc.stdout.fileno(), 4096)
            if not piece:
                break
            data += piece
    return data.decode(errors="replace").splitlines()[0] if data else ""


def _wait_port(proc: subprocess.Popen[bytes], port: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1.0):
            return True
        time.sleep(0.05)
    return False


@contextlib.contextmanager
def serve(name: str, cmd: list[str], *, port: int | None = None, cpus: frozenset[int] | None = None,
          cwd: Path = ROOT) -> Iterator[Server]:
    """Start `cmd` and wait (bounded) until it serves: on `port` when given (polled), else on the URL its first
    output line prints. The process is always stopped on exit (SIGTERM, then SIGKILL)."""
    with tempfile.TemporaryFile() as errors:
        proc = subprocess.Popen(cmd, cwd=cwd, stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL if port is not None else subprocess.PIPE,
                                stderr=errors, preexec_fn=pinned(cpus))
        try:
            server = Server(name, proc)
            if port is not None:
                ok, line = _wait_port(proc, port, START_TIMEOUT), ""
                server.port = port
            else:
                line = _first_line(proc, START_TIMEOUT)
                match = re.search(r"http://([0-9.]+):(\d+)", line)
                ok = match is not None
                if match is not None:
                    server.host, server.port = match.group(1), int(match.group(2))
            if not ok:
                errors.seek(0)
                raise RuntimeError(f"{name} did not start ({' '.join(cmd)}): {line!r} "
                                   f"{errors.read().decode(errors='replace')[-1500:]}")
            yield server
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)
            if proc.stdout is not None:
                proc.stdout.close()


# -- a raw HTTP/1.1 client -----------------------------------------------------------------------------------


def post(host: str, port: int, path: str, body: bytes, headers: dict[str, str] | None = None, *,
         close: bool = True) -> bytes:
    """The bytes of a POST request."""
    head = f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
    for name, value in (headers or {}).items():
        head += f"{name}: {value}\r\n"
    head += f"Content-Length: {len(body)}\r\n" + ("Connection: close\r\n" if close else "")
    return head.encode() + b"\r\n" + body


@dataclass(slots=True)
class Response:
    """A response read off a raw socket; `chunks` are the body's HTTP chunks, each with the perf_counter time of
    the recv that completed it."""

    status: int = 0
    headers: dict[str, str] = field(default_factory=dict)
    chunks: list[tuple[float, bytes]] = field(default_factory=list)

    @property
    def body(self) -> bytes:
        return b"".join(data for _, data in self.chunks)


def exchange(host: str, port: int, request: bytes, timeout: float = IO_TIMEOUT) -> Response:
    """Send one request on a new connection and read the response as bytes arrive (chunked or Content-Length or
    until close; bounded by `timeout`)."""
    response = Response()
    buf = bytearray()
    pos = 0
    state = "head"
    size = 0
    deadline = time.monotonic() + timeout
    with socket.create_connection((host, port), timeout=timeout) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.sendall(request)
        while state != "done":
            if time.monotonic() > deadline:
                raise TimeoutError(f"no complete response from {host}:{port} within {timeout} s")
            piece = sock.recv(262144)
            now = time.perf_counter()
            if not piece:
                if state == "close":
                    break
                raise ConnectionError(f"{host}:{port} closed the connection mid-response ({state})")
            buf += piece
            while True:
                if state == "head":
                    end = buf.find(b"\r\n\r\n", pos)
                    if end < 0:
                        break
                    lines = bytes(buf[pos:end]).decode("latin-1").split("\r\n")
                    response.status = int(lines[0].split()[1])
                    for line in lines[1:]:
                        name, _, value = line.partition(":")
                        response.headers[name.strip().lower()] = value.strip()
                    pos = end + 4
                    if response.headers.get("transfer-encoding", "").lower() == "chunked":
                        state = "size"
                    elif "content-length" in response.headers:
                        state, size = "data", int(response.headers["content-length"])
                    else:
                        state = "close"
                elif state == "size":
                    end = buf.find(b"\r\n", pos)
                    if end < 0:
                        break
                    size = int(bytes(buf[pos:end]).split(b";")[0], 16)
                    pos = end + 2
                    state = "chunk" if size else "done"
                elif state in ("chunk", "data"):
                    tail = 2 if state == "chunk" else 0
                    if len(buf) - pos < size + tail:
                        break
                    response.chunks.append((now, bytes(buf[pos : pos + size])))
                    pos += size + tail
                    state = "size" if state == "chunk" else "done"
                elif state == "close":  # everything until the peer closes
                    if pos < len(buf):
                        response.chunks.append((now, bytes(buf[pos:])))
                        pos = len(buf)
                    break
                else:  # "done"
                    break
            if pos > 1 << 20:
                del buf[:pos]
                pos = 0
    return response


async def keepalive_load(host: str, port: int, request: bytes, *, seconds: float, concurrency: int,
                         request_timeout: float = IO_TIMEOUT, slack: float = IO_TIMEOUT) -> tuple[int, int, float]:
    """Send `request` over `concurrency` keep-alive connections for `seconds`: (completed, failed, elapsed). Each
    request is bounded by `request_timeout`, the whole run by `seconds + slack`."""
    done = failed = 0
    start = time.monotonic()
    stop = start + seconds

    async def one(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        writer.write(request)
        head = (await reader.readuntil(b"\r\n\r\n")).lower()
        if b"transfer-encoding: chunked" in head:
            while True:
                size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
                await reader.readexactly(size + 2)
                if size == 0:
                    break
        else:
            match = re.search(rb"content-length:\s*(\d+)", head)
            await reader.readexactly(int(match.group(1)) if match else 0)
        return head.startswith(b"http/1.1 200")

    async def worker() -> None:
        nonlocal done, failed
        reader, writer = await asyncio.open_connection(host, port)
        try:
            while time.monotonic() < stop:
                if await asyncio.wait_for(one(reader, writer), request_timeout):
                    done += 1
                else:
                    failed += 1
        finally:
            writer.close()

    await asyncio.wait_for(asyncio.gather(*(worker() for _ in range(concurrency))), seconds + slack)
    return done, failed, time.monotonic() - start


def ws_frame(text: str) -> bytes:
    """One masked client text frame (RFC 6455 §5.2: a client masks every frame; one fixed key serves a bench)."""
    payload = text.encode()
    key = b"\x37\xfa\x21\x3d"
    size = len(payload)
    head = bytes([0x81]) + (bytes([0x80 | size]) if size < 126 else
                            bytes([0x80 | 126]) + size.to_bytes(2, "big") if size < 65536 else
                            bytes([0x80 | 127]) + size.to_bytes(8, "big"))
    return head + key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))


class _Frames:
    """Server frames (unmasked) off one connection, parsed from what has arrived: the frame headers only, the payloads
    are not decoded."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self.reader = reader
        self.buffer = b""

    async def turn(self, end: bytes) -> tuple[int, bool]:
        """Messages until one holding `end` (then True) or an `error` event or a close (then False)."""
        count = 0
        data, at = self.buffer, 0
        while True:
            if len(data) - at < 10:  # room for the longest header
                more = await self.reader.read(1 << 16)
                if not more and len(data) - at < 2:
                    return count, False
                data, at = data[at:] + more, 0
                continue
            size = data[at + 1] & 0x7F
            start = at + 2
            if size == 126:
                size, start = int.from_bytes(data[at + 2:at + 4], "big"), at + 4
            elif size == 127:
                size, start = int.from_bytes(data[at + 2:at + 10], "big"), at + 10
            if len(data) < start + size:
                data, at = data[at:] + await self.reader.read(1 << 16), 0
                continue
            opcode, payload = data[at] & 0x0F, data[start:start + 80]
            at = start + size
            if opcode == 0x8:  # close
                self.buffer = data[at:]
                return count, False
            count += 1
            if end in payload or b'"type":"error"' in payload[:40]:
                self.buffer = data[at:]
                return count, end in payload


async def ws_load(host: str, port: int, path: str, headers: Mapping[str, str], message: str, *, seconds: float,
                  connections: int, end: bytes = b'"response.completed"', turn_timeout: float = IO_TIMEOUT,
                  max_turns: int = 1_000_000) -> tuple[int, int, int, float]:
    """Turns of `message` over `connections` WebSocket connections for `seconds`, each turn read to its message holding
    `end` (every connection plays one turn at least, `max_turns` at most): (turns, messages, failed turns, elapsed).
    A bounded asyncio raw-socket client: it parses the frame headers,
    not the payloads (a Python WebSocket library parsing every frame would be the limit, as httpx would for HTTP)."""
    frame = ws_frame(message)
    extra = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    upgrade = (f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               f"Sec-WebSocket-Key: Y2FsbHByb29mLWJlbmNoIQ==\r\nSec-WebSocket-Version: 13\r\n{extra}\r\n").encode()
    turns = messages = failed = 0
    start = time.monotonic()
    stop = start + seconds

    async def worker() -> None:
        nonlocal turns, messages, failed
        reader, writer = await asyncio.open_connection(host, port)
        try:
            writer.write(upgrade)
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), turn_timeout)
            if not head.startswith(b"HTTP/1.1 101"):
                raise RuntimeError(f"the WebSocket upgrade of {path} was answered {head[:40]!r}")
            frames = _Frames(reader)
            played = 0
            while (played == 0 or time.monotonic() < stop) and played < max_turns:
                played += 1
                writer.write(frame)
                count, ended = await asyncio.wait_for(frames.turn(end), turn_timeout)
                if ended:
                    turns, messages = turns + 1, messages + count
                else:
                    failed += 1
        finally:
            writer.close()

    await asyncio.wait_for(asyncio.gather(*(worker() for _ in range(connections))), seconds + IO_TIMEOUT)
    return turns, messages, failed, time.monotonic() - start


def load_rounds(servers: Sequence[Server], load: Callable[[Server, float], tuple[int, int, float]], *,
                warmup: float, seconds: float, rounds: int) -> dict[str, list[float]]:
    """Requests/s of each server, round by round: one warm-up load each, then `rounds` loads of `seconds` with the
    servers alternating (order flipped every round), so machine noise hits them alike. Any failed request raises."""
    rates: dict[str, list[float]] = {s.name: [] for s in servers}
    for server in servers:
        load(server, warmup)
    for i in range(rounds):
        for server in servers if i % 2 == 0 else servers[::-1]:
            done, failed, elapsed = load(server, seconds)
            if failed or not done:
                raise RuntimeError(f"{server.name}: {failed} failed requests of {done + failed} under load")
            rates[server.name].append(done / elapsed)
    return rates


def paired_ratio(numerators: Sequence[float], denominators: Sequence[float]) -> float:
    """The median of run-by-run ratios: runs alternate between the servers, so each pair saw the same machine load
    and slow drift cancels out."""
    return statistics.median(a / b for a, b in zip(numerators, denominators, strict=True))


# -- wrk ---------------------------------------------------------------------------------------------------------


WRK_SCRIPT = """wrk.method = "POST"
wrk.body = {body}
wrk.headers["Content-Type"] = "application/json"
{headers}
"""


def run_wrk(wrk: str, url: str, script: Path, *, seconds: float, connections: int,
            cpus: frozenset[int] | None) -> tuple[int, int, float]:
    """(completed, failed, elapsed seconds) of one wrk run (-t1, keep-alive)."""
    out = subprocess.run(
        [wrk, "-t1", f"-c{connections}", f"-d{seconds:g}s", "--timeout", "10s", "-s", str(script), url],
        capture_output=True, text=True, timeout=seconds + 60, preexec_fn=pinned(cpus), check=False,
    )
    match = re.search(r"(\d+) requests in ([\d.]+)(us|ms|s|m)\b", out.stdout)
    if out.returncode != 0 or match is None:
        raise RuntimeError(f"wrk against {url} failed (exit {out.returncode}): {out.stdout}{out.stderr}")
    scale = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0}[match.group(3)]
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", out.stdout)
    errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out.stdout)
    failed = (int(bad.group(1)) if bad else 0) + (sum(int(g) for g in errors.groups()) if errors else 0)
    return int(match.group(1)), failed, float(match.group(2)) * scale


def version_of(cmd: list[str]) -> str:
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return "?"
    lines = (out.stdout or out.stderr).splitlines()
    return lines[0].strip() if lines else "?"
