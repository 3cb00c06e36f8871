"""Standings cached per scope (a tournament, or the all-games ladder) and results version.

Fitting ratings over 100,000 games takes about a second, so a page never fits: it asks the
database for the scope's results version (how many matches are done, one indexed count)
and reuses the fit made for that version. A recorded result bumps the version, which is
what invalidates the entry; nothing has to notify the dashboard. Each dashboard process
keeps its own small cache, shared by its threads.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from arena.store import Match

Scope = int | None  # a tournament id, or None for every tournament
MAX_ENTRIES = 64


def _seen(s: Session) -> dict[Scope, int]:
    return s.info.setdefault("arena_results_versions", {})


def note_results_version(s: Session, tournament_id: int, done: int) -> None:
    """A caller that has just counted a tournament's done matches saves the count query."""
    _seen(s)[tournament_id] = done


def results_version(s: Session, scope: Scope) -> int:
    """How many matches of the scope are done: grows with every recorded result. Counted
    once per session (a page asks for several cached tables of the same scope)."""
    seen = _seen(s)
    if scope not in seen:
        query = select(func.count()).select_from(Match).where(Match.status == "done")
        if scope is not None:
            query = query.where(Match.tournament_id == scope)
        seen[scope] = s.scalar(query) or 0
    return seen[scope]


class VersionedCache:
    """A small LRU of values keyed by (kind, scope, results version).

    One thread builds a missing entry; the others asking for it meanwhile get the newest
    older version of the same table when there is one (a page one result behind, rather than
    a crowd of readers each fitting the same ratings at once after every match), and wait for
    the build otherwise. A process with one thread, a worker's, always gets the fresh one."""

    def __init__(self, size: int = MAX_ENTRIES) -> None:
        self._size = size
        self._items: OrderedDict[tuple, Any] = OrderedDict()
        self._building: dict[tuple, threading.Event] = {}
        self._lock = threading.Lock()

    def get(self, s: Session, kind: str, scope: Scope, build: Callable[[], Any]) -> Any:
        # the database too: a process (a test run) may open several with the same ids
        table = (str(s.get_bind().engine.url), kind, scope)
        key = (*table, results_version(s, scope))
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
            built = self._building.get(key)
            if built is None:
                self._building[key] = threading.Event()
            elif (older := self._newest_before(table, key[-1])) is not None:
                return older
        if built is not None:  # another thread builds it, and nothing older is kept: wait
            built.wait()
            with self._lock:
                if key in self._items:
                    return self._items[key]
            return self.get(s, kind, scope, build)  # its build failed: try again
        try:
            value = build()  # outside the lock: a slow fit must not block other scopes
            with self._lock:
                self._items[key] = value
                while len(self._items) > self._size:
                    self._items.popitem(last=False)
        finally:
            with self._lock:
                self._building.pop(key).set()
        return value

    def _newest_before(self, table: tuple, version: int) -> Any:
        """The value of ``table`` at its newest version below ``version`` (None: none kept)."""
        older = [k for k in self._items if k[:3] == table and k[3] < version]
        return self._items[max(older, key=lambda k: k[3])] if older else None

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


CACHE = VersionedCache()
