"""The platform's HTTP/1.1 client for Bhoos bots: one request per connection, under a hard
deadline and hard size caps, following nothing.

Whatever answers on the bot's socket is the bot (the relay in its sandbox included), so
nothing it sends is trusted: the whole exchange must finish before the decision's deadline
(a bot dripping one byte a second still times out), the head is capped at
``MAX_HEAD_BYTES`` (endless headers) and the body at ``MAX_BODY_BYTES`` (either is an
``oversized`` fault, as an oversized gRPC message is), a redirect is only a wrong status,
and the only address ever connected to is the one the client was built with.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import h11

from arena.players.player import BadReply, BotDied, BotTimeout, Oversized

MAX_HEAD_BYTES = 16 * 1024
MAX_BODY_BYTES = 64 * 1024  # an answer is a few dozen bytes; the same cap as gRPC messages
_READ_BYTES = 16 * 1024

Connect = Callable[[float], socket.socket]  # timeout in seconds -> a connected socket


@dataclass(frozen=True)
class Endpoint:
    """Where a bot is: how to connect, and the Host header to send."""

    connect: Connect
    host: str
    prefix: str = ""  # path prefix of a remote bot's URL


def unix_endpoint(path: str) -> Endpoint:
    """A Unix socket (for a sandboxed bot: the checked ``/proc/self/fd/N`` path)."""

    def connect(timeout: float) -> socket.socket:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(timeout)
        try:
            sock.connect(path)
        except BaseException:
            sock.close()
            raise
        return sock

    return Endpoint(connect, "localhost:7000")


def tcp_endpoint(host: str, port: int, prefix: str = "") -> Endpoint:
    """A remote bot at ``host:port`` (``arena play http://host:7000``)."""

    def connect(timeout: float) -> socket.socket:
        return socket.create_connection((host, port), timeout=timeout)

    return Endpoint(connect, f"{host}:{port}", prefix.rstrip("/"))


def call(endpoint: Endpoint, method: str, path: str, body: object, deadline: float) -> object:
    """Send one request and return the answer's JSON; raise a ``BotFault`` for anything else:
    ``BotTimeout`` past ``deadline`` (``time.monotonic()``), ``BotDied`` when the bot cannot
    be reached or closes without answering, ``Oversized``, or ``BadReply`` (a status other
    than 200, a body that is not JSON)."""
    data = b"" if body is None else json.dumps(body, separators=(",", ":")).encode()
    try:
        sock = endpoint.connect(_left(deadline))
    except TimeoutError:
        raise BotTimeout(f"{method} {path}: no connection in time") from None
    except OSError as exc:
        raise BotDied(f"{method} {path}: cannot connect ({exc.strerror or exc})") from None
    with sock:
        status, payload = _exchange(sock, endpoint, method, path, data, deadline)
    if status != 200:
        raise BadReply(f"{method} {path}: HTTP status {status} (expected 200)")
    try:
        return json.loads(payload)
    except (ValueError, RecursionError):  # bad JSON or UTF-8, a 5000-digit number, [[[[...
        shown = payload[:40].decode(errors="replace")
        raise BadReply(f"{method} {path}: the answer is not JSON: {shown!r}") from None


def _exchange(
    sock: socket.socket, endpoint: Endpoint, method: str, path: str, data: bytes, deadline: float
) -> tuple[int, bytes]:
    conn = h11.Connection(h11.CLIENT, max_incomplete_event_size=MAX_HEAD_BYTES)
    headers = [("Host", endpoint.host), ("Connection", "close")]
    if method == "POST":
        headers += [("Content-Type", "application/json"), ("Content-Length", str(len(data)))]
    out = conn.send(h11.Request(method=method, target=endpoint.prefix + path, headers=headers))
    out += conn.send(h11.Data(data=data)) if data else b""
    out += conn.send(h11.EndOfMessage())
    what = f"{method} {path}"
    received = 0
    try:
        sock.settimeout(_left(deadline))
        sock.sendall(out)
        status, body = 0, bytearray()
        while True:
            event = conn.next_event()
            if event is h11.NEED_DATA:
                sock.settimeout(_left(deadline))
                chunk = sock.recv(_READ_BYTES)
                received += len(chunk)
                conn.receive_data(chunk)
            elif isinstance(event, h11.Response):
                status = event.status_code
                _check_length(event.headers, what)
            elif isinstance(event, h11.Data):
                body += event.data
                if len(body) > MAX_BODY_BYTES:
                    raise Oversized(f"{what}: answer over the {MAX_BODY_BYTES} byte limit")
            elif isinstance(event, h11.EndOfMessage):
                return status, bytes(body)
    except TimeoutError:
        raise BotTimeout(f"no answer to {what} in time") from None
    except h11.RemoteProtocolError as exc:
        if "buffer too long" in str(exc):
            raise Oversized(f"{what}: response head over {MAX_HEAD_BYTES} bytes") from None
        if not received:
            raise BotDied(f"{what}: the bot closed the connection without answering") from None
        raise BadReply(f"{what}: not a valid HTTP response ({str(exc)[:80]})") from None
    except OSError as exc:
        raise BotDied(f"{what}: connection lost ({exc.strerror or exc})") from None


def _check_length(headers: Iterable[tuple[bytes, bytes]], what: str) -> None:
    """Refuse an announced body over the cap before reading any of it."""
    for name, value in headers:
        if name == b"content-length" and int(value) > MAX_BODY_BYTES:
            raise Oversized(f"{what}: answer of {int(value)} bytes, over {MAX_BODY_BYTES}")


def _left(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError
    return left
