"""How much of a worker's time the audit may take from play, so that it keeps pace.

Sent to the audit queue at the lowest priority alone, a busy ladder starves the judging: a
worker takes an audit job only once no match waits, and a ladder that keeps every worker
busy never lets one wait. So each worker judges its own just-played match at once, in the
same process, while one more judging at the mean cost so far keeps its judging within
``share`` of the wall time its matches took; the rest goes to the queue, for a worker that
has nothing else to do. Matches are then slowed by at most ``share / (1 + share)`` (a third
at the default 0.5, the first judging and the spread of their costs aside), and about that
share of the play is judged as it is played however busy the ladder is. The matches
``suspects.urgent`` names (a new version's first, a suspicious bot's) may take up to twice
the share: while they are many (the first matches of a field of new uploads) matches slow by
up to ``2 share / (1 + 2 share)``, a half at 0.5. A share of 0 judges nothing inline
(dedicated audit workers take it all from the queue).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from arena.audits.recovery import unsent
from arena.audits.run import run
from arena.audits.suspects import urgent
from arena.config import DEFAULT_AUDIT_SHARE, Settings
from arena.store import Database

URGENT_FACTOR = 2  # urgent judgings may take up to twice the share of play
log = logging.getLogger(__name__)


@dataclass
class Budget:
    """One worker process's account: seconds played and seconds judged inline."""

    share: float = DEFAULT_AUDIT_SHARE
    played_s: float = 0.0
    judged_s: float = 0.0
    judgings: int = 0

    def played(self, seconds: float) -> None:
        self.played_s += seconds

    def allows(self, urgent: bool = False) -> bool:
        """Whether the next judging, at the mean cost of those so far, stays within the
        share, or twice the share for an urgent one (0: never, everything to the queue).
        The first is allowed: its cost is not known yet."""
        mean = self.judged_s / self.judgings if self.judgings else 0.0
        share = self.share * (URGENT_FACTOR if urgent else 1)
        return self.share > 0 and self.judged_s + mean <= share * self.played_s

    def judged(self, seconds: float) -> None:
        self.judged_s += seconds
        self.judgings += 1


def judge_or_send(
    db: Database,
    settings: Settings,
    budget: Budget,
    match_id: int,
    worker: str,
    send: Callable[[int], object],
) -> list[str]:
    """The just-recorded match's hindsight (if it has one never sent): judged here while
    ``budget`` allows or the match is urgent (``suspects``), else given to ``send`` (the
    audit queue). What became of each: ``run``'s status, or ``sent``."""
    ended = []
    for hindsight_id in unsent(db, settings.lease_s, match_id):
        if not budget.allows():
            why = urgent(db, match_id) if budget.allows(urgent=True) else None
            if why is None:
                send(hindsight_id)
                ended.append("sent")
                continue
            log.info("match %s judged past the budget: %s", match_id, why)
        started = time.monotonic()
        try:
            ended.append(run(db, hindsight_id, worker, settings))
        finally:
            budget.judged(time.monotonic() - started)
    return ended
