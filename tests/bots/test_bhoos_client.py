"""The platform's HTTP client for Bhoos bots, against real sockets whose peer misbehaves:
whatever comes back, the exchange ends by its deadline with a bounded amount read, follows
no redirect, and becomes the fault a gRPC bot gets for the same thing."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator

import pytest

from arena.game import BHOOS, PAGAT
from arena.players.bhoos.client import MAX_BODY_BYTES, call
from arena.players.bhoos.player import BhoosPlayer, endpoint_of
from arena.players.player import BadReply, BotDied, BotTimeout, MatchInfo, Oversized

Script = Callable[[socket.socket], None]
OK = b'HTTP/1.1 200 OK\r\nContent-Length: 13\r\n\r\n{"value": 3}\n'


class Peer:
    """A TCP server on the loopback that runs ``script`` for every connection and keeps the
    raw requests it read."""

    def __init__(self, script: Script) -> None:
        self.script, self.requests = script, []
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._one, args=(conn,), daemon=True).start()

    def _one(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(5)
            data = b""
            while b"\r\n\r\n" not in data:
                data += conn.recv(4096)
            head, _, body = data.partition(b"\r\n\r\n")
            length = int(
                next(
                    (
                        h.split(b":")[1]
                        for h in head.split(b"\r\n")[1:]
                        if h.lower().startswith(b"content-length")
                    ),
                    b"0",
                )
            )
            while len(body) < length:
                body += conn.recv(4096)
            self.requests.append((head.decode(), body))
            with contextlib.suppress(OSError):
                self.script(conn)


@pytest.fixture
def peer() -> Iterator[Callable[[Script], Peer]]:
    peers: list[Peer] = []

    def make(script: Script) -> Peer:
        peers.append(Peer(script))
        return peers[-1]

    yield make
    for p in peers:
        p.sock.close()


def post(p: Peer, seconds: float = 2.0, path: str = "/bid") -> object:
    return call(endpoint_of(p.url), "POST", path, {"x": 1}, time.monotonic() + seconds)


def test_a_request_is_one_json_post_on_a_closed_connection(peer) -> None:
    p = peer(lambda c: c.sendall(OK))
    assert post(p) == {"value": 3}
    head, body = p.requests[0]
    lines = head.split("\r\n")
    assert lines[0] == "POST /bid HTTP/1.1"
    assert {"Connection: close", "Content-Type: application/json"} <= set(lines)
    assert json.loads(body) == {"x": 1}


def test_chunked_and_close_delimited_answers_are_read(peer) -> None:
    chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
    chunked += b'5\r\n{"val\r\n7\r\nue": 4}\r\n0\r\n\r\n'
    assert post(peer(lambda c: c.sendall(chunked))) == {"value": 4}
    until_close = b'HTTP/1.0 200 OK\r\n\r\n{"value": 5}'
    assert post(peer(lambda c: c.sendall(until_close))) == {"value": 5}


def test_a_remote_bot_s_url_prefix_is_kept_and_nothing_else_is_accepted(peer) -> None:
    p = peer(lambda c: c.sendall(OK))
    call(endpoint_of(p.url + "/team7/"), "GET", "/hi", None, time.monotonic() + 2)
    assert p.requests[0][0].startswith("GET /team7/hi HTTP/1.1")
    for bad in ("https://example.org", "ftp://x", "http://x:7000/?a=b", "x:7000", "http://"):
        with pytest.raises(ValueError):
            endpoint_of(bad)


def test_a_redirect_is_a_bad_status_and_is_not_followed(peer) -> None:
    trap = peer(lambda c: c.sendall(OK))
    p = peer(
        lambda c: c.sendall(
            f"HTTP/1.1 302 Found\r\nLocation: {trap.url}/bid\r\nContent-Length: 0\r\n\r\n".encode()
        )
    )
    with pytest.raises(BadReply, match="HTTP status 302"):
        post(p)
    time.sleep(0.1)
    assert trap.requests == []


def test_an_answer_dripped_a_byte_at_a_time_times_out_at_the_deadline(peer) -> None:
    def drip(conn: socket.socket) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\n")
        for _ in range(2000):
            conn.sendall(b"X")
            time.sleep(0.005)

    started = time.monotonic()
    with pytest.raises(BotTimeout, match="no answer to POST /bid in time"):
        post(peer(drip), seconds=0.3)
    assert time.monotonic() - started < 5  # not the 10 s the drip would last


def test_endless_headers_and_bodies_are_oversized(peer) -> None:
    def headers(conn: socket.socket) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\n")
        while True:
            conn.sendall(b"X-A: " + b"a" * 1000 + b"\r\n")

    def body(conn: socket.socket) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
        while True:
            conn.sendall(b"1000\r\n" + b" " * 4096 + b"\r\n")

    announced = f"HTTP/1.1 200 OK\r\nContent-Length: {10**12}\r\n\r\n".encode()
    with pytest.raises(Oversized, match="response head over"):
        post(peer(headers))
    with pytest.raises(Oversized, match=f"over the {MAX_BODY_BYTES} byte limit"):
        post(peer(body))
    with pytest.raises(Oversized, match=f"answer of {10**12} bytes"):
        post(peer(lambda c: c.sendall(announced)))


def test_bad_statuses_and_bodies_are_malformed(peer) -> None:
    cases = {
        b"HTTP/1.1 500 Oops\r\nContent-Length: 0\r\n\r\n": "HTTP status 500",
        b"HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nnope": "not JSON: 'nope'",
        b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n\xff\xfe": "not JSON",
        b"HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n" + b"7" * 5000: "not JSON",
        b"HTTP/1.1 200 OK\r\nContent-Length: 60000\r\n\r\n" + b"[" * 60000: "not JSON",
        b"hello there\r\n\r\n": "not a valid HTTP response",
        b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n{}": "not a valid HTTP response",
    }
    for answer, reason in cases.items():
        with pytest.raises(BadReply, match=reason):
            post(peer(lambda c, a=answer: c.sendall(a)))


def test_nobody_listening_or_a_silent_hang_up_is_a_dead_bot(peer) -> None:
    with pytest.raises(BotDied, match="closed the connection without answering"):
        post(peer(lambda c: None))
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))  # a port nobody listens on
        url = f"http://127.0.0.1:{unused.getsockname()[1]}"
        with pytest.raises(BotDied, match="cannot connect"):
            call(endpoint_of(url), "GET", "/hi", None, time.monotonic() + 2)


def test_start_polls_hi_until_hello_and_refuses_other_rules(peer) -> None:
    answers = iter([b"HTTP/1.1 503 Busy\r\nContent-Length: 0\r\n\r\n"] * 3)

    def warming(conn: socket.socket) -> None:
        hello = b'{"value": "hello"}'
        ok = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(hello), hello)
        conn.sendall(next(answers, ok))

    p = peer(warming)
    player = BhoosPlayer(p.url, "remote")
    player.start(MatchInfo("m", BHOOS, 1000, 1000), 5.0)
    assert len(p.requests) == 4 and all(h.startswith("GET /hi ") for h, _ in p.requests)
    with pytest.raises(BotDied, match="bhoos rules only"):
        player.start(MatchInfo("m", PAGAT, 1000, 1000), 5.0)
    silent = peer(lambda c: None)
    with pytest.raises(BotDied, match=r"not ready within 0\.3s"):
        BhoosPlayer(silent.url, "remote").start(MatchInfo("m", BHOOS, 1000, 1000), 0.3)
