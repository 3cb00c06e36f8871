"""Serve the app under waitress with request deadlines (``arena dashboard``).

Why waitress: its asynchronous front (one thread polling every socket) reads each request
whole, headers and body (a large body spooled to a temporary file), before a worker thread
sees it. A client that sends slowly or stops costs a socket, never a thread, whereas one
such client holds a gunicorn sync worker for as long as it likes. Waitress's own timeout
counts from the last byte received, so a client trickling a byte every few seconds is never
idle; :class:`DeadlineChannel` adds deadlines for a request's headers and for its body.

A body over the limit is refused from its declared length (or, chunked, as soon as it passes
the limit) by the app's own answer (413 and why), and then still read and dropped, within
bounds, before the connection closes: a client that sends its whole body before it reads
(``http.client``, ``arena bot submit``) would otherwise get a reset, not the answer.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import socket
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from waitress.channel import HTTPChannel
from waitress.parser import HTTPRequestParser
from waitress.server import TcpWSGIServer
from waitress.task import ErrorTask, Task, WSGITask
from waitress.utilities import RequestEntityTooLarge

from arena.config import Settings
from dashboard.submitting import FORM_SLACK

TIMEOUT = b"HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"
CONNECTION_LIMIT = 1000  # open sockets; idle and slow ones included (each costs ~10 KiB)


@dataclass(frozen=True)
class Deadlines:
    """Seconds a client gets: ``header_s`` from a request's first byte to its end of headers,
    ``body_s`` from there to the body's last byte (a 64-MiB upload needs 1.8 Mbit/s), and
    ``idle_s`` without sending anything (also between the requests of a kept-alive
    connection). Checked every ``check_s``. And ``drain_bytes``: how much of a body refused
    for its size is still read (and dropped) after the answer, within ``body_s``."""

    header_s: float = 10.0
    body_s: float = 300.0
    idle_s: float = 30.0
    check_s: float = 1.0
    drain_bytes: int = 1 << 30


class Parser(HTTPRequestParser):
    """Waitress's parser, except that a body over the limit ends the parsing of the
    connection: all the client sends after it is that body, for the channel to drop, never
    the next request."""

    dropped = 0  # bytes of the refused body that came with its headers

    def received(self, data: bytes) -> int:
        consumed = super().received(data)
        if not isinstance(self.error, RequestEntityTooLarge):
            return consumed
        self.expect_continue = False  # the answer is the refusal, not "send it"
        self.dropped = len(data) - consumed
        return len(data)


@dataclass
class _Drain:
    """What is left to read of a refused body, and until when."""

    left: int
    until: float
    answered: bool = False  # its task is done: once its answer is out, the sending side shuts
    shut: bool = False


def _error_task(channel: DeadlineChannel, request: Parser) -> Task:
    """The task for a request waitress refused while reading it. One refused for the size of
    its body is answered by the app all the same, with the headers alone (a chunked one
    with the length it had reached): the app's answer says why (an upload over
    ``ARENA_MAX_UPLOAD``, a bad token), where waitress's own 413 says nothing. The
    connection closes after it, once the rest of the body is read (``DeadlineChannel``)."""
    if not isinstance(request.error, RequestEntityTooLarge):
        return ErrorTask(channel, request)  # type: ignore[arg-type]
    channel.drain_after(request)
    if request.chunked:
        # types-waitress declares the headers read-only; the parser keeps them in a dict
        request.headers["CONTENT_LENGTH"] = str(request.body_bytes_received)  # type: ignore[index]
    request.close()  # what was spooled of the body: the app reads none of it
    request.body_rcv = None
    # types-waitress declares a task's request as an Error; waitress passes the parser
    task = WSGITask(channel, request)  # type: ignore[arg-type]
    task.set_close_on_finish()
    return task


class DeadlineChannel(HTTPChannel):
    """A connection that answers 408 and closes when its request comes in too slowly, and
    that reads the rest of a body refused for its size before it closes: its answer is
    sent, then the sending side is shut (the client reads the answer and the end), and what
    the client still sends is dropped until all it declared is in (a chunked body: until it
    closes), ``drain_bytes`` are or ``body_s`` has passed."""

    # waitress only calls it, as it would the class: a factory serves (the stubs want a class)
    error_task_class = staticmethod(_error_task)  # type: ignore[assignment]
    parser_class = Parser
    server: Server  # the Server whose channel_class this is

    started = 0.0  # first byte of the request being received
    headers_done: float | None = None
    drain: _Drain | None = None  # the rest of a refused body, being dropped

    def drain_after(self, request: Parser) -> None:
        """Drop the rest of ``request``'s body once it is answered (the task's thread calls
        it; the loop reads nothing more from this connection until then)."""
        limits = self.server.deadlines
        declared = limits.drain_bytes if request.chunked else request.content_length
        left = min(declared, limits.drain_bytes) - request.dropped
        if left > 0:
            self.drain = _Drain(left, time.monotonic() + limits.body_s)

    def received(self, data: bytes) -> bool:
        drain = self.drain
        if drain is not None:
            drain.left -= len(data)
            if drain.left <= 0:
                self.will_close = True
            return True
        now = time.monotonic()
        if self.request is None:
            self.started, self.headers_done = now, None
        done = super().received(data)
        request = self.request
        if request is not None and request.headers_finished and self.headers_done is None:
            self.headers_done = now
        return done

    def handle_write(self) -> None:
        drain = self.drain
        if drain is not None and self.close_when_flushed:
            self.close_when_flushed = False  # closed when the body is in (``received``)
            drain.answered = True
        super().handle_write()
        if drain is None or not drain.answered or drain.shut or self.total_outbufs_len:
            return
        drain.shut = True  # the answer is out: the client reads it, then the end
        if self.connected and self.socket is not None:
            with contextlib.suppress(OSError):  # gone meanwhile: the loop sees it
                self.socket.shutdown(socket.SHUT_WR)

    def overdue(self, now: float) -> bool:
        """True while an incomplete request has outlived its header or body deadline, or a
        refused body is still being read past its deadline."""
        if self.drain is not None:
            return now > self.drain.until
        request = self.request
        if request is None or request.completed or self.requests:
            return False  # between requests (the idle timeout's case) or being answered
        deadlines = self.server.deadlines
        if self.headers_done is None:
            return now - self.started > deadlines.header_s
        return now - self.headers_done > deadlines.body_s

    def time_out(self) -> None:
        if self.drain is not None:  # answered already
            self.will_close = True
            return
        with self.outbuf_lock:
            self.outbufs[-1].append(TIMEOUT)
            self.current_outbuf_count += len(TIMEOUT)
            self.total_outbufs_len += len(TIMEOUT)
        self.close_when_flushed = True


class Server(TcpWSGIServer):
    """Waitress's TCP server whose maintenance (every ``check_s``) also enforces deadlines."""

    channel_class = DeadlineChannel

    def __init__(self, app: Callable, deadlines: Deadlines, **options) -> None:
        self.deadlines = deadlines
        super().__init__(app, **options)

    def maintenance(self, now: float) -> None:
        # the idle timeout (wall clock, as waitress keeps it); types-waitress types the time
        # as an int and the channels as one channel, where waitress has a float and a dict
        super().maintenance(now)  # type: ignore[arg-type]
        mono = time.monotonic()
        for channel in list(self.active_channels.values()):  # type: ignore[attr-defined]
            if not channel.close_when_flushed and channel.overdue(mono):
                channel.time_out()


def make_server(
    app: Callable,
    host: str,
    port: int,
    threads: int,
    deadlines: Deadlines | None = None,
    trusted_proxy: str | None = None,
) -> Server:
    """A bound server for ``app`` (``port`` 0: any free one); ``run()`` serves until stopped.
    ``trusted_proxy``: the front proxy's address (or ``*``) whose X-Forwarded-For/-Proto
    headers are believed, so that per-address limits see the real client."""
    deadlines = deadlines or Deadlines()
    proxy = {}
    if trusted_proxy:
        proxy = {
            "trusted_proxy": trusted_proxy,
            "trusted_proxy_count": 1,
            "trusted_proxy_headers": {"x-forwarded-for", "x-forwarded-proto"},
        }
    return Server(
        AccessLog(app),
        deadlines,
        host=host,
        port=port,
        threads=threads,
        connection_limit=CONNECTION_LIMIT,
        channel_timeout=deadlines.idle_s,
        cleanup_interval=deadlines.check_s,
        # waitress refuses a body of this length or more; the app, one over upload + form
        max_request_body_size=Settings.from_env().max_upload + FORM_SLACK + 1,
        ident="arena",
        asyncore_use_poll=True,  # select() stops at fd 1024
        **proxy,
    )


def bound_server(host: str, port: int, threads: int, trusted_proxy: str | None = None) -> Server:
    """The configured app on a bound socket: ``run()`` serves it until stopped (Ctrl-C or
    SIGTERM). ``OSError`` when the socket cannot be bound (``bind_problem`` says why)."""
    from dashboard import create_app

    logging.basicConfig(level=logging.INFO, format="%(message)s", stream=sys.stdout)
    return make_server(create_app(), host, port, threads, trusted_proxy=trusted_proxy)


def port_problem(host: str, port: int) -> str | None:
    """Why the dashboard could not listen on ``host:port``, found by binding a socket there
    as waitress does (the first address the name resolves to, SO_REUSEADDR); None when it
    can. Checked before the app is made, which restarts lost validations."""
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        family, kind, _, _, address = found[0]
        with socket.socket(family, kind) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(address)
    except OSError as exc:
        return bind_problem(host, port, exc)
    return None


def bind_problem(host: str, port: int, exc: OSError) -> str:
    """One line for a socket that could not be bound, saying which option to change."""
    if exc.errno == errno.EADDRINUSE:
        return f"port {port} is in use: stop what listens on it, or choose another with --port"
    if exc.errno == errno.EACCES:
        return f"port {port} needs privileges this user lacks: choose another with --port"
    why = exc.strerror or str(exc)
    return f"cannot listen on {host}:{port}: {why} (--host, --port)"


class AccessLog:
    """One line per answered request on stdout: address, method, path and query, status
    (never a body, so no password)."""

    def __init__(self, app: Callable) -> None:
        self.app = app

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        def logged(status: str, headers: list, *rest):
            query = environ.get("QUERY_STRING")
            target = environ.get("PATH_INFO", "") + (f"?{query}" if query else "")
            address = environ.get("REMOTE_ADDR", "-")
            print(f'{address} "{environ["REQUEST_METHOD"]} {target}" {status[:3]}', flush=True)
            return start_response(status, headers, *rest)

        return self.app(environ, logged)
