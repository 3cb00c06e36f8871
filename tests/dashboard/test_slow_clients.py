"""The served dashboard (waitress with our deadlines, as ``arena dashboard`` builds it) on
real sockets: clients that trickle their headers or body hold no thread that answers
others, and a request that comes in too slowly is answered 408 and closed."""

from __future__ import annotations

import contextlib
import socket
import threading
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from arena.config import Settings
from arena.runtime import Runtime
from arena.store import Database, upgrade
from dashboard import create_app
from dashboard.serve import Deadlines
from tests.dashboard.serving import serving

HEADERS = b"GET / HTTP/1.1\r\nHost: arena\r\n"  # never finished: a header line per byte
BODY = b"POST /login HTTP/1.1\r\nHost: arena\r\nContent-Length: 100000\r\n\r\nname="
SHORT = Deadlines(header_s=1.0, body_s=1.0, idle_s=2.0, check_s=0.2)


@contextmanager
def served(tmp_path, deadlines: Deadlines, threads: int = 2) -> Iterator[int]:
    """The port of the dashboard on a fresh SQLite file, served until the block ends."""
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    upgrade(url)
    runtime = Runtime(Settings(url, tmp_path / "data", ""))
    with serving(create_app(Database(url), runtime), deadlines, threads) as port:
        yield port


class Trickle:
    """Connections that send their start at once, then one byte every ``every_s`` from a
    background thread until closed by the server or by the end of the test."""

    def __init__(self, port: int, every_s: float) -> None:
        self.port, self.every_s = port, every_s
        self.socks: list[socket.socket] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def open(self, start: bytes, count: int = 1) -> list[socket.socket]:
        socks = [socket.create_connection(("127.0.0.1", self.port)) for _ in range(count)]
        for sock in socks:
            sock.sendall(start)
        self.socks += socks
        return socks

    def _run(self) -> None:
        while not self.stop.wait(self.every_s):
            for sock in self.socks:
                with contextlib.suppress(OSError):  # closed by the server: the deadline tests
                    sock.send(b"a")

    def __enter__(self) -> Trickle:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        self.thread.join()
        for sock in self.socks:
            sock.close()


def answer(sock: socket.socket, timeout_s: float = 30.0) -> bytes:
    """Everything the server sends until it closes the connection."""
    sock.settimeout(timeout_s)
    received = b""
    try:
        while chunk := sock.recv(4096):
            received += chunk
    except ConnectionResetError:
        pass  # closed with our unread bytes in its buffer: closed all the same
    return received


def test_a_page_answers_while_more_slow_clients_than_threads_trickle(tmp_path):
    with served(tmp_path, Deadlines(), threads=2) as port, Trickle(port, 0.5) as slow:
        slow.open(HEADERS, 20)
        slow.open(BODY, 20)
        page = urllib.request.urlopen(f"http://127.0.0.1:{port}/tournaments/", timeout=60)
        assert page.status == 200 and "No tournaments yet" in page.read().decode()


@pytest.mark.parametrize("start", [HEADERS, BODY], ids=["headers", "body"])
def test_a_request_trickling_past_its_deadline_gets_408_and_is_closed(tmp_path, start):
    with served(tmp_path, SHORT) as port, Trickle(port, 0.2) as slow:
        (sock,) = slow.open(start)
        assert answer(sock).startswith(b"HTTP/1.1 408 ")


def test_a_stalled_client_is_closed_and_others_are_answered(tmp_path):
    with served(tmp_path, SHORT) as port:
        stalled = socket.create_connection(("127.0.0.1", port))  # connects, never sends
        started = socket.create_connection(("127.0.0.1", port))
        started.sendall(b"GET / HTTP/1.1\r\n")  # then stops
        assert answer(stalled) == b""
        assert answer(started).startswith(b"HTTP/1.1 408 ")
        page = urllib.request.urlopen(f"http://127.0.0.1:{port}/tournaments/", timeout=60)
        assert page.status == 200
