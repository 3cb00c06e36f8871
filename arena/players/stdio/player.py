"""The referee's side of a stdio-json bot: JSON lines on the socket its relay serves.

Lines are framed here, never trusted: a line over ``MAX_MESSAGE_BYTES`` drops the connection
(``oversized``, as for gRPC), a line that is no BotMessage is a ``malformed`` strike. One
writer thread sends what the referee queues, so a bot that stops reading its stdin blocks
only that thread, never the referee.
"""

from __future__ import annotations

import contextlib
import socket
import threading

from arena.players.player import BadReply, BotDied, Oversized
from arena.players.stdio.json_wire import bot_message, line_of
from arena.players.stream import CLOSE, MAX_MESSAGE_BYTES, StreamPlayer

_READ_BYTES = 16 * 1024


class StdioJsonPlayer(StreamPlayer):
    """Referee side of the JSON-lines stream to a bot's relay at ``unix:/path``."""

    _sock: socket.socket | None = None

    def _connect(self, timeout_s: float) -> None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock = sock
        sock.settimeout(timeout_s)
        try:
            sock.connect(self.target.removeprefix("unix:"))
        except OSError as exc:
            raise BotDied(f"cannot connect to the bot's relay ({exc.strerror or exc})") from None
        sock.settimeout(None)
        threading.Thread(target=self._write, args=(sock,), daemon=True).start()
        threading.Thread(target=self._read, args=(sock,), daemon=True).start()

    def _write(self, sock: socket.socket) -> None:
        with contextlib.suppress(OSError):
            for msg in iter(self._outbox.get, CLOSE):
                sock.sendall(line_of(msg))
            sock.shutdown(socket.SHUT_WR)  # the bot's stdin ends

    def _read(self, sock: socket.socket) -> None:
        try:
            self._lines(sock)
        finally:
            self._reader_done.set()

    def _lines(self, sock: socket.socket) -> None:
        pending = b""
        while True:
            try:
                data = sock.recv(_READ_BYTES)
            except OSError as exc:
                self._put(BotDied(f"connection lost ({exc.strerror or exc})"))
                return
            if not data:
                self._put(BotDied("the bot closed its stdout"))
                return
            *lines, pending = (pending + data).split(b"\n")
            for line in lines:
                item = _parsed(line) if line.strip() else None
                if item is not None and (not self._put(item) or isinstance(item, BotDied)):
                    return
            if len(pending) > MAX_MESSAGE_BYTES:
                self._put(Oversized(f"wrote a line over the {MAX_MESSAGE_BYTES} byte limit"))
                return

    def _disconnect(self) -> None:
        if self._sock is not None:
            with contextlib.suppress(OSError):
                self._sock.shutdown(socket.SHUT_RDWR)
            self._sock.close()
            self._sock = None


def _parsed(line: bytes) -> object:
    if len(line) > MAX_MESSAGE_BYTES:
        return Oversized(f"wrote a line over the {MAX_MESSAGE_BYTES} byte limit")
    try:
        return bot_message(line)
    except BadReply as exc:
        return exc
