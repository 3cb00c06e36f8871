"""Stopping a worker in the middle of a match, but never in the middle of a database write.

A stop arrives as a signal and is raised as :class:`Stopped` in the main thread wherever it
happens to be. Raised inside a write (a progress record, a claim, a result), it could leave
a connection holding the database's write lock, and the give-back that follows would then
fail and leave the match ``running`` until its lease expired. So writes run ``shielded``: a
stop that arrives during one is raised when it ends.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

_armed = False  # a match is being played: a stop may be raised
_shields = 0
_pending = False


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


@contextmanager
def stoppable() -> Iterator[None]:
    """The block plays a match: a stop request may interrupt it."""
    global _armed, _pending
    _armed, _pending = True, False
    try:
        yield
    finally:
        _armed = _pending = False


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
