"""Capturing a bot's output: the first bytes to its log, the rest drained and counted, so
that a bot never blocks on a full pipe and never fills the platform's disk.

The platform may mark the log (:meth:`_LogPump.mark`): a line starting with ``LOG_MARK``,
a byte the bot's own output is stripped of, so that no line the bot writes can pass for one.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import select
import struct
import termios
import threading
import time
from typing import BinaryIO

logger = logging.getLogger(__package__)  # the package's one logger, named as before the split

LOG_MARK = "\x1e"  # ASCII record separator: never inside a UTF-8 sequence, never shown
_MARK = LOG_MARK.encode()


class _LogPump:
    """A thread copying the pipe ``fd`` to ``out`` up to ``cap`` bytes, then draining it.

    Everything that touches ``out`` or reads ``fd`` holds ``_lock``: :meth:`mark`, called
    from the referee's thread, reads the pipe itself so that the bot's earlier output lands
    before the mark (the read end is non-blocking, so neither side waits on the other)."""

    def __init__(self, fd: int, out: BinaryIO, cap: int, pid: int) -> None:
        self.truncated = False
        self.dropped = 0
        self._cap, self._pid = cap, pid
        self._written = 0
        self._pending = b""  # a mark, written just before the bot's next output
        self._line_start = True
        self._closed = False
        self._fd, self._out = fd, out
        self._lock = threading.Lock()
        self._stop = threading.Event()
        os.set_blocking(fd, False)  # the read end only: the bot's write end is its own
        self._thread = threading.Thread(target=self._pump, name=f"sandbox-log-{pid}", daemon=True)
        self._thread.start()

    def settle(self, timeout: float) -> bool:
        """Wait until the pipe's writers are gone and all they wrote is in the log file
        (the process exited); False if a writer (a leftover child) still holds it open."""
        self._thread.join(timeout=timeout)
        return not self._thread.is_alive()

    def finish(self, timeout: float) -> None:
        """Stop once the pipe is quiet (the sandbox is being stopped) and wait for it."""
        self._stop.set()
        self._thread.join(timeout=timeout)

    def mark(self, label: str) -> None:
        """Put ``label`` on a line of its own after everything the bot has written so far
        and before what it writes next. A mark is written only once the bot writes again
        (a silent decision leaves no line) and only whole, within the cap."""
        with self._lock:
            if self._closed:
                return
            try:
                # what the pipe holds now, no more: a bot writing on would keep it full
                left = struct.unpack("i", fcntl.ioctl(self._fd, termios.FIONREAD, b"\0" * 4))[0]
                while left > 0 and (chunk := self._read(min(left, 65536))):
                    left -= len(chunk)
                    self._emit(chunk)
            except OSError:
                return  # the pump meets the same error and reports it
            self._pending = _MARK + label.replace(LOG_MARK, "").encode() + b"\n"

    def _pump(self) -> None:
        fd = self._fd
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        try:
            self._copy(poller)
        except OSError:
            logger.exception("sandbox pid %d: log capture failed", self._pid)
            with self._lock:
                self._closed = True  # no more marks: they would read the pipe made blocking
            with contextlib.suppress(OSError):
                os.set_blocking(fd, True)
                while os.read(fd, 65536):  # never leave the bot blocked on a full pipe
                    pass
        finally:
            with self._lock:
                self._closed = True
                with contextlib.suppress(OSError):
                    self._out.close()
                os.close(fd)

    def _copy(self, poller: select.poll) -> None:
        """Read until EOF, or until the pipe has been quiet (or a second has passed) once
        :meth:`finish` asked: a bot's leftover children may keep the pipe open for good."""
        drain_deadline: float | None = None
        while True:
            if self._stop.is_set() and drain_deadline is None:
                drain_deadline = time.monotonic() + 1.0
            if drain_deadline is not None and time.monotonic() > drain_deadline:
                break
            if not poller.poll(100):
                if drain_deadline is not None:
                    break  # tree is dead and nothing is pending
                continue
            with self._lock:
                chunk = self._read()
                if chunk == b"":
                    break
                if chunk is not None:
                    self._emit(chunk)
        with self._lock:
            if self.truncated:
                self._out.write(f"[arena: {self.dropped} bytes discarded]\n".encode())

    def _read(self, size: int = 65536) -> bytes | None:
        """What the pipe holds (b"": the writers are gone; None: nothing for now)."""
        try:
            return os.read(self._fd, size)
        except BlockingIOError:
            return None

    def _emit(self, chunk: bytes) -> None:
        """The bot's ``chunk``, stripped of ``LOG_MARK``, after the pending mark if any."""
        chunk = chunk.replace(_MARK, b"")
        if not chunk:
            return
        if self._pending:
            mark = self._pending if self._line_start else b"\n" + self._pending
            self._pending = b""
            if len(mark) <= self._cap - self._written:
                self._out.write(mark)
                self._written += len(mark)
        self._append_capped(chunk)

    def _append_capped(self, chunk: bytes) -> None:
        """Write what fits of ``chunk`` under the cap (noting the first overflow)."""
        room = self._cap - self._written
        if room > 0:
            self._out.write(chunk[:room])
            self._written += min(room, len(chunk))
            self._line_start = chunk[:room].endswith(b"\n")
        if len(chunk) > room:
            self.dropped += len(chunk) - max(room, 0)
            if not self.truncated:
                self.truncated = True
                note = f"\n[arena: log truncated at {self._cap} bytes; rest discarded]\n"
                self._out.write(note.encode())
