"""Sending again the analyses whose job or worker was lost: the workers' periodic recovery
(``workers.tasks.recovery``, on the beat's tick) runs it beside the matches' own."""

from __future__ import annotations

import logging
from collections.abc import Callable

from arena.store import Database
from arena.store.analyses import to_send

log = logging.getLogger(__name__)


def recover(db: Database, lease_s: float, idle: bool, send: Callable[[int], object]) -> int:
    """Send the analyses never sent, and again those claimable though sent a lease ago or
    more while nothing waits in their queue (``idle``; a deep queue may still hold their
    job), or at once when their worker took the job and was lost (its lease ran out). A job
    sent twice is harmless: the second finds the analysis done or leased. How many."""
    with db.session() as s:
        due = to_send(s, lease_s, idle)
    for analysis_id in due:
        send(analysis_id)
    if due:
        log.info("%s analyses sent again", len(due))
    return len(due)
