"""Sending again the hindsights whose job or worker was lost: the workers' periodic recovery
(``workers.tasks.recovery``, on the beat's tick) runs it beside the matches' own."""

from __future__ import annotations

import logging
from collections.abc import Callable

from arena.store import Database
from arena.store.hindsights import to_send

log = logging.getLogger(__name__)


def recover(db: Database, lease_s: float, idle: bool, send: Callable[[int], object]) -> int:
    """Send the hindsights never sent (matches recorded without a broker, or whose send
    failed), and again those claimable though sent a lease ago or more while nothing waits
    in their queue (``idle``: the audit queue is the last taken, so a deep one still holds
    their jobs), or at once when their worker took the job and was lost. A job sent twice
    is harmless: the second finds the hindsight done or leased. How many."""
    with db.session() as s:
        due = to_send(s, lease_s, idle)
    for hindsight_id in due:
        send(hindsight_id)
    if due:
        log.info("%s hindsights sent again", len(due))
    return len(due)


def unsent(db: Database, lease_s: float, match_id: int) -> list[int]:
    """The just-recorded match's hindsight, if it has one never sent, marked sent (one
    indexed UPDATE): what its match's job sends."""
    with db.session() as s:
        return to_send(s, lease_s, idle=False, match_ids=[match_id])
