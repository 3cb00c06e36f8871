"""A TCP forwarder between the dashboard and the test Postgres that a test can cut and
restore, so a database outage is real at the socket level: while cut, the open connections
are closed and new ones are refused (nothing listens) or, when ``hang`` is set, accepted and
never answered (a host gone silent)."""

from __future__ import annotations

import contextlib
import selectors
import socket
import threading


class Forwarder:
    """127.0.0.1:``port`` forwarded to ``target``, one thread moving every connection's bytes."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self._lock = threading.Lock()
        self._pairs: dict[socket.socket, socket.socket] = {}  # each side -> the other
        self._held: list[socket.socket] = []  # accepted while hanging, never answered
        self._hang = False
        self._selector = selectors.DefaultSelector()
        self._wake_r, self._wake_w = socket.socketpair()
        self._selector.register(self._wake_r, selectors.EVENT_READ)
        self._stopped = False
        self.port = 0
        self._listener: socket.socket | None = None
        self._listen()
        self._thread = threading.Thread(target=self._run, name="forwarder", daemon=True)
        self._thread.start()

    def _listen(self) -> None:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        listener.setblocking(False)
        self.port = listener.getsockname()[1]
        self._listener = listener
        self._selector.register(listener, selectors.EVENT_READ)

    def cut(self, hang: bool = False) -> None:
        """Close every forwarded connection; refuse new ones, or with ``hang`` accept them and
        never answer."""
        with self._lock:
            self._hang = hang
            if not hang and self._listener is not None:
                self._selector.unregister(self._listener)
                self._listener.close()
                self._listener = None
            for sock in list(self._pairs):
                self._drop(sock)
        self._wake_w.send(b"x")

    def restore(self) -> None:
        """Forward again, on the same port."""
        with self._lock:
            self._hang = False
            for sock in self._held:
                sock.close()
            self._held.clear()
            if self._listener is None:
                self._listen()
        self._wake_w.send(b"x")

    def close(self) -> None:
        self._stopped = True
        self._wake_w.send(b"x")
        self._thread.join(10)
        with self._lock:
            for sock in list(self._pairs):
                self._drop(sock)
            for sock in (*self._held, self._listener, self._wake_r, self._wake_w):
                if sock is not None:
                    sock.close()
        self._selector.close()

    def __enter__(self) -> Forwarder:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _run(self) -> None:
        while not self._stopped:
            for key, _ in self._selector.select(timeout=1.0):
                with self._lock:
                    self._ready(key.fileobj)

    def _ready(self, sock) -> None:
        if sock is self._wake_r:
            self._wake_r.recv(4096)
        elif sock is self._listener:
            self._accept(sock)
        elif sock in self._pairs:
            self._move(sock)

    def _accept(self, listener: socket.socket) -> None:
        with contextlib.suppress(BlockingIOError):
            client, _ = listener.accept()
            if self._hang:
                self._held.append(client)
                return
            try:
                server = socket.create_connection(self.target, timeout=5)
            except OSError:
                client.close()
                return
            for one, other in ((client, server), (server, client)):
                one.setblocking(True)
                self._pairs[one] = other
                self._selector.register(one, selectors.EVENT_READ)

    def _move(self, sock: socket.socket) -> None:
        try:
            data = sock.recv(65536)
            if data:
                self._pairs[sock].sendall(data)
                return
        except OSError:
            pass
        self._drop(sock)

    def _drop(self, sock: socket.socket) -> None:
        """Close both sides of ``sock``'s connection (once: either side may be named)."""
        other = self._pairs.pop(sock, None)
        if other is None:
            return
        del self._pairs[other]
        for one in (sock, other):
            self._selector.unregister(one)
            one.close()
