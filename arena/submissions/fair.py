"""A thread pool that is fair between users: each user's jobs run one at a time, and users
take turns.

Validations used to wait on one thread, first come first served: two uploads of a bot that
spends its whole clock made a third user's ordinary upload wait 151 s instead of about 25 s.
Here a user's second job waits for their first, never for someone else's, and a free thread
takes the user whose turn is next (round robin), so one user's backlog delays another's
upload by at most the jobs already running."""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Hashable
from concurrent.futures import Future
from typing import Any

_Job = tuple[Future[Any], Callable[..., Any], tuple[Any, ...]]


class FairPool:
    """``workers`` daemon threads taking jobs by key (a user), one job per key at a time."""

    def __init__(self, workers: int, name: str) -> None:
        self._cond = threading.Condition()
        self._waiting: dict[Hashable, deque[_Job]] = {}
        self._turns: deque[Hashable] = deque()  # keys with waiting jobs, next turn first
        self._running: set[Hashable] = set()
        for i in range(workers):
            threading.Thread(target=self._work, name=f"{name}-{i}", daemon=True).start()

    def submit(self, key: Hashable, fn: Callable[..., Any], *args: Any) -> Future[Any]:
        future: Future[Any] = Future()
        with self._cond:
            if key not in self._waiting:
                self._waiting[key] = deque()
                self._turns.append(key)
            self._waiting[key].append((future, fn, args))
            self._cond.notify_all()
        return future

    def waiting(self) -> dict[Hashable, int]:
        """Jobs not yet started, per key (what a progress display would show)."""
        with self._cond:
            return {key: len(jobs) for key, jobs in self._waiting.items()}

    def _take(self) -> tuple[Hashable, _Job]:
        """The first job of the first key in turn with nothing running (blocks)."""
        with self._cond:
            while True:
                key = next((k for k in self._turns if k not in self._running), None)
                if key is not None:
                    break
                self._cond.wait()
            self._turns.remove(key)
            jobs = self._waiting[key]
            job = jobs.popleft()
            if jobs:
                self._turns.append(key)  # its next job waits for everyone else's turn
            else:
                del self._waiting[key]
            self._running.add(key)
            return key, job

    def _work(self) -> None:
        while True:
            key, (future, fn, args) = self._take()
            try:
                if future.set_running_or_notify_cancel():
                    try:
                        future.set_result(fn(*args))
                    except BaseException as exc:
                        future.set_exception(exc)
            finally:
                with self._cond:
                    self._running.discard(key)
                    self._cond.notify_all()
