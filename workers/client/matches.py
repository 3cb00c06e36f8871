"""Sending a tournament's matches to the workers and following it until it is done.

Matches are sent once. Nothing more is needed for the tournament to finish: the workers
finish it as its last match ends, and the beat's recovery (``arena beat``; see
``arena.tournaments.dispatch``) sends again the matches whose job or worker was lost. A
follower is a progress view; it runs the same recovery for its own tournament, so a
cluster without a beat finishes too. It rides out a database outage with a warning.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from kombu.exceptions import OperationalError
from sqlalchemy.exc import DBAPIError

from arena.store import Database, progress, set_tournament_status
from arena.store.db import database_down, outage_text
from arena.tournaments.dispatch import (
    RUNTIME_QUEUES,
    matches_to_send,
    recover_tournament,
    recovery_every_s,
)
from workers.app import app, waiting
from workers.identity import sending_for
from workers.tasks import idle_queues, send_match

POLL_S = 0.5
OUTAGE_POLL_S = 2.0  # how often a follower asks again while the database is down


def known_queues() -> set[str]:
    return set(RUNTIME_QUEUES.values())


log = logging.getLogger(__name__)
Progress = Callable[[dict[str, int]], None]
Trouble = Callable[[str | None], None]  # a warning to show; None once it has passed


def broker_problem(connect: bool = True) -> str | None:
    """Why the broker cannot be used, in one line (password masked); None when it answers
    (without ``connect``: when its URL is usable, for a worker that waits for the broker)."""
    try:
        conn = app.connection_for_write()
        where = conn.as_uri()
    except Exception as exc:  # an unknown scheme or a malformed URL
        return f"ARENA_BROKER_URL is not a usable broker URL ({exc})"
    if not connect:
        return None
    try:
        with conn:
            # kombu takes seconds as a float; celery-types declares an int
            conn.ensure_connection(max_retries=1, interval_start=0.2)  # type: ignore[arg-type]
    except Exception as exc:  # any failure means "no usable broker"
        return f"cannot reach the broker at {where} ({exc}); check ARENA_BROKER_URL"
    return None


class CeleryMatches:
    """The Celery backend as the dashboard's start sends to it (a ``MatchQueue`` of
    ``arena.tournaments.background``)."""

    def problem(self) -> str | None:
        return broker_problem()

    def send(self, db: Database, tournament_id: int) -> int:
        return send_matches(db, tournament_id)


def send_matches(db: Database, tournament_id: int) -> int:
    """Send the jobs of the matches not yet sent; how many were (a broker away: those are
    sent again by the recovery)."""
    with db.session() as s:
        set_tournament_status(s, tournament_id, "running")
    with sending_for(db):
        return sum(send_match(job) for job in matches_to_send(db, tournament_id))


def queues_empty() -> bool:
    """No job waits in any queue this app sends to (False when the broker is away)."""
    try:
        with app.connection_for_read() as conn:
            return all(waiting(conn.default_channel, queue) == 0 for queue in known_queues())
    except OperationalError:
        return False


def follow(
    db: Database,
    tournament_id: int,
    lease_s: float,
    on_progress: Progress | None = None,
    on_trouble: Trouble | None = None,
) -> dict[str, int]:
    """Wait until no match is pending or running; returns the count in each status. Every
    third of a lease, and whenever nothing is left to play, runs the recovery for this
    tournament. While the database is down, ``on_trouble`` gets a warning (once) and the
    follower keeps asking; None once it answers again."""
    every_s, last = recovery_every_s(lease_s), time.monotonic()
    troubled = False
    while True:
        try:
            with db.session(read_only=True) as s:
                state = progress(s, tournament_id)
            over = not (state["pending"] or state["running"])
            if over or time.monotonic() - last >= every_s:
                with sending_for(db):
                    recover_tournament(db, tournament_id, lease_s, idle_queues(), send_match)
                last = time.monotonic()
            if over:  # finished now, unless a round of adaptive matches was added
                with db.session(read_only=True) as s:
                    state = progress(s, tournament_id)
                if not (state["pending"] or state["running"]):
                    return state
        except DBAPIError as exc:
            if not database_down(exc):
                raise
            if not troubled and on_trouble is not None:
                on_trouble(f"database unreachable ({outage_text(exc)}); still following")
            troubled = True
            time.sleep(OUTAGE_POLL_S)
            continue
        if troubled and on_trouble is not None:
            on_trouble(None)
        troubled = False
        if on_progress is not None:
            on_progress(state)
        time.sleep(POLL_S)
