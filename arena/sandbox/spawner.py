"""Forking the sandbox so that it dies with the platform process, and only then."""

from __future__ import annotations

import ctypes
import functools
import os
import platform
import queue
import signal
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

_T = TypeVar("_T")

# Each entry: a start and the future of its result (whatever it returns).
_spawn_queue: queue.SimpleQueue[tuple[Callable[[], Any], Future[Any]]] = queue.SimpleQueue()
_spawn_thread: threading.Thread | None = None
_spawn_lock = threading.Lock()


def _spawn(start: Callable[[], _T]) -> _T:
    """Run ``start`` (a Popen) on one long-lived thread.

    bwrap's ``--die-with-parent`` is PR_SET_PDEATHSIG, which fires when the *thread* that
    forked bwrap exits, not the process: a bot launched from a short-lived worker thread
    would be SIGKILLed as soon as that thread ended. Forking from a thread that lives as
    long as the process keeps the signal for what it is meant for: the platform dying.
    """
    global _spawn_thread
    with _spawn_lock:
        if _spawn_thread is None or not _spawn_thread.is_alive():
            _spawn_thread = threading.Thread(
                target=_spawn_loop, name="arena-sandbox-spawner", daemon=True
            )
            _spawn_thread.start()
        thread = _spawn_thread
    if threading.current_thread() is thread:
        return start()
    future: Future[_T] = Future()
    _spawn_queue.put((start, future))
    return future.result()


_PR_SET_PDEATHSIG = 1


@functools.cache
def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def die_with(parent: int) -> Callable[[], None]:
    """A function that makes the calling process die with ``parent`` (pid), or exit at once
    if ``parent`` is already gone; used as a ``preexec_fn``, and by worker processes.

    As a ``preexec_fn`` it closes the gap in bwrap's ``--die-with-parent``: bwrap makes that
    call only once it runs, so a platform killed between the fork and that moment left the
    sandbox running for good. The child asks for SIGKILL on parent death before exec (it is
    kept across the exec of bwrap, which is not set-uid) and quits if the parent has already
    gone. Resolved here, so the forked child only makes two system calls."""
    prctl, sigkill = _libc().prctl, int(signal.SIGKILL)

    def preexec() -> None:
        prctl(_PR_SET_PDEATHSIG, sigkill)
        if os.getppid() != parent:
            os._exit(1)

    return preexec


_KEYCTL = {"x86_64": 250, "aarch64": 219}
_KEYCTL_JOIN_SESSION_KEYRING = 1


def fresh_session_keyring() -> Callable[[], None]:
    """A ``preexec_fn`` step giving the child a new, empty session keyring: otherwise every
    bot would inherit (and, as a possessor, list in /proc/keys) the platform's session
    keyring, with whatever the operator's session keeps there. The bot itself can make no
    keyring call (seccomp.py). A host whose container already refuses keyctl has no
    keyring to inherit: the call's failure is then harmless and ignored."""
    number = _KEYCTL.get(platform.machine())
    syscall = _libc().syscall

    def join() -> None:
        if number is not None:
            syscall(number, _KEYCTL_JOIN_SESSION_KEYRING, None)

    return join


def _spawn_loop() -> None:
    while True:
        start, future = _spawn_queue.get()
        if future.set_running_or_notify_cancel():
            try:
                future.set_result(start())
            except BaseException as exc:
                future.set_exception(exc)
