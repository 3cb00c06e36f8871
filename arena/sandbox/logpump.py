"""Capturing a bot's output: the first bytes to its log, the rest drained and counted, so
that a bot never blocks on a full pipe and never fills the platform's disk."""

from __future__ import annotations

import contextlib
import logging
import os
import select
import threading
import time
from typing import BinaryIO

logger = logging.getLogger(__package__)  # the package's one logger, named as before the split


class _LogPump:
    """A thread copying the pipe ``fd`` to ``out`` up to ``cap`` bytes, then draining it."""

    def __init__(self, fd: int, out: BinaryIO, cap: int, pid: int) -> None:
        self.truncated = False
        self.dropped = 0
        self._cap, self._pid = cap, pid
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._pump, args=(fd, out), name=f"sandbox-log-{pid}", daemon=True
        )
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

    def _pump(self, fd: int, out: BinaryIO) -> None:
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        try:
            with out:
                self._copy(fd, poller, out)
        except OSError:
            logger.exception("sandbox pid %d: log capture failed", self._pid)
            with contextlib.suppress(OSError):
                while os.read(fd, 65536):  # never leave the bot blocked on a full pipe
                    pass
        finally:
            os.close(fd)

    def _copy(self, fd: int, poller: select.poll, out: BinaryIO) -> None:
        """Read until EOF, or until the pipe has been quiet (or a second has passed) once
        :meth:`finish` asked: a bot's leftover children may keep the pipe open for good."""
        written = 0
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
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            written = self._append_capped(out, chunk, written)
        if self.truncated:
            out.write(f"[arena: {self.dropped} bytes discarded]\n".encode())

    def _append_capped(self, out: BinaryIO, chunk: bytes, written: int) -> int:
        """Write what fits of ``chunk`` under the cap (noting the first overflow); returns the
        new count of bytes written."""
        room = self._cap - written
        if room > 0:
            out.write(chunk[:room])
            written += min(room, len(chunk))
        if len(chunk) > room:
            self.dropped += len(chunk) - max(room, 0)
            if not self.truncated:
                self.truncated = True
                note = f"\n[arena: log truncated at {self._cap} bytes; rest discarded]\n"
                out.write(note.encode())
        return written
