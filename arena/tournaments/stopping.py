"""Stopping a worker in the middle of a match, but never in the middle of a database write.

A stop arrives as a signal and is raised as :class:`Stopped` in the main thread wherever it
happens to be. Raised inside a write (a progress record, a claim, a result), it could leave
a connection holding the database's write lock, and the give-back that follows would then
fail and leave the match ``running`` until its lease expired. So writes run ``shielded``: a
stop that arrives during one is raised when it ends.

A stop can also come from another thread (an organiser's stop seen in the database, where no
signal reaches a Celery worker's pool process): ``stop_soon`` only marks it, and the match
raises it at its next ``checkpoint``, before a decision.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

_armed = False  # a match is being played: a stop may be raised
_shields = 0
_pending = False
_soon = False  # set from another thread: raised at the next checkpoint


class Stopped(BaseException):
    """The run was stopped: abandon the match being played (its lease is given back)."""


def request_stop() -> None:
    """Called by the signal handler: raise now, after the current write, or not at all."""
    global _pending
    if not _armed:
        return
    if _shields:
        _pending = True
        return
    raise Stopped


def stop_soon() -> None:
    """From any thread: the match being played stops at its next checkpoint."""
    global _soon
    _soon = _armed


def checkpoint() -> None:
    """In the thread playing the match, between two decisions: raise a stop marked since."""
    global _soon
    if _soon and not _shields:  # set only while a match is armed, cleared as it ends
        _soon = False
        raise Stopped


@contextmanager
def stoppable() -> Iterator[None]:
    """The block plays a match: a stop request may interrupt it."""
    global _armed, _pending, _soon
    _armed, _pending, _soon = True, False, False
    try:
        yield
    finally:
        _armed = _pending = _soon = False


@contextmanager
def shielded() -> Iterator[None]:
    """No stop inside the block; one that came meanwhile is raised as it ends."""
    global _shields, _pending
    _shields += 1
    try:
        yield
    finally:
        _shields -= 1
        if not _shields and _pending and _armed:
            _pending = False
            raise Stopped
