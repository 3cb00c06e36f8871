"""A remote question answered within a deadline, or not at all.

Socket timeouts bound each step of a connection, but not always the whole of it (a server
that accepts and then says nothing, a DNS lookup), and a health probe must answer in the
orchestrator's few seconds whatever the peer does. So the question runs on a daemon thread
of its own and the caller waits at most ``timeout_s``; a late answer is dropped, and the
thread ends by itself when its socket timeouts run out.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Sequence
from typing import TypeVar, cast

T = TypeVar("T")


class NoAnswer(TimeoutError):
    """The question was not answered within its deadline."""


def within(timeout_s: float, work: Callable[[], T], what: str = "an answer") -> T:
    """``work()``'s result, or its exception, if it comes within ``timeout_s``; else
    ``NoAnswer``."""
    box: queue.SimpleQueue[tuple[bool, object]] = queue.SimpleQueue()

    def run() -> None:
        try:
            box.put((True, work()))
        except BaseException as exc:  # handed to the caller, who decides
            box.put((False, exc))

    threading.Thread(target=run, name="arena-deadline", daemon=True).start()
    try:
        ok, value = box.get(timeout=timeout_s)
    except queue.Empty:
        raise NoAnswer(f"no {what} within {timeout_s:g} s") from None
    if ok:
        return cast(T, value)  # what work() returned
    assert isinstance(value, BaseException)
    raise value


def all_within(timeout_s: float, works: Sequence[Callable[[], T]]) -> list[T | None]:
    """Each of ``works`` at once, on daemon threads of their own; what each returned within
    ``timeout_s`` in all (None: no answer in time). ``works`` must not raise: a check turns
    its failure into its answer."""
    found: list[T | None] = [None] * len(works)
    done = [threading.Event() for _ in works]

    def run(index: int, work: Callable[[], T]) -> None:
        found[index] = work()
        done[index].set()

    for index, work in enumerate(works):
        threading.Thread(target=run, args=(index, work), name="arena-check", daemon=True).start()
    deadline = time.monotonic() + timeout_s
    for event in done:
        event.wait(max(0.0, deadline - time.monotonic()))
    return [value if event.is_set() else None for value, event in zip(found, done, strict=True)]
