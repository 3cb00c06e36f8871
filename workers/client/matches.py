"""Sending a tournament's matches to the workers and following it until it is done.

Matches are sent once. A follower that sees no match end for a whole lease while the
queues are empty sends again the matches that can be claimed (their jobs were lost: a
broker restarted without persistence, a worker killed with jobs in hand), so a tournament
never sticks; a deep queue is left alone. Duplicate jobs are harmless: a match is leased,
and recorded once.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from kombu.exceptions import ChannelError, OperationalError

from arena.store import Database, progress, set_tournament_status
from arena.tournaments.dispatch import RUNTIME_QUEUES, finish_if_over, matches_to_send
from workers.app import app
from workers.identity import sending_for
from workers.tasks import run_match_task

POLL_S = 0.5


def known_queues() -> set[str]:
    return set(RUNTIME_QUEUES.values())


log = logging.getLogger(__name__)
Progress = Callable[[dict[str, int]], None]


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
            conn.ensure_connection(max_retries=1, interval_start=0.2)
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


def send_matches(db: Database, tournament_id: int, resend_after_s: float | None = None) -> int:
    """Send the jobs of the matches not yet sent (or sent that long ago); how many were."""
    with db.session() as s:
        set_tournament_status(s, tournament_id, "running")
    sent = 0
    with sending_for(db):
        for match_id, queue in matches_to_send(db, tournament_id, resend_after_s):
            try:
                run_match_task.apply_async((match_id,), queue=queue)
                sent += 1
            except OperationalError as exc:  # the broker is away: sent again after a stall
                log.warning("could not send match %s (%s); will try again", match_id, exc)
    return sent


def queues_empty() -> bool:
    """No job waits in any queue this app sends to (False when the broker is away)."""
    try:
        with app.connection_for_read() as conn:
            return all(_waiting(conn.default_channel, queue) == 0 for queue in known_queues())
    except OperationalError:
        return False


def _waiting(channel, queue: str) -> int:
    try:
        return channel.queue_declare(queue, passive=True).message_count
    except ChannelError:  # never declared: nothing was ever sent to it
        return 0


def follow(
    db: Database, tournament_id: int, lease_s: float, on_progress: Progress | None = None
) -> dict[str, int]:
    """Wait until no match is pending or running; returns the count in each status."""
    ended, since = -1, time.monotonic()
    while True:
        with db.session(read_only=True) as s:
            state = progress(s, tournament_id)
        if on_progress is not None:
            on_progress(state)
        if not (state["pending"] or state["running"]):
            finish_if_over(db, tournament_id)  # may schedule a round of adaptive matches
            with db.session(read_only=True) as s:
                state = progress(s, tournament_id)
            if not state["pending"]:
                return state
            send_matches(db, tournament_id)
        if state["done"] + state["failed"] != ended:
            ended, since = state["done"] + state["failed"], time.monotonic()
        elif time.monotonic() - since > lease_s:
            if queues_empty():
                send_matches(db, tournament_id, resend_after_s=lease_s)
            since = time.monotonic()
        time.sleep(POLL_S)
