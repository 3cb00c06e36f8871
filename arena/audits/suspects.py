"""The matches judged at once whatever a worker's budget: where the audit's answer matters
most and soonest.

- A bot version's first ``FIRST_JUDGED`` judged matches: a new upload is where a cheat
  comes in, and its placement is where it would climb. A full memory cheat is flagged in
  about four judged matches, so it is caught while it is placed.
- A bot version whose judged matches so far already lean its way: the memory test on its
  latest ``RECENT`` judged matches at p <= ``LEANS_P`` (0.05), far above the audit's own
  threshold, so that the evidence for or against it comes at the pace of its play.

Each judging still counts against the budget, so ordinary matches wait for the budget to
catch up; what these add is bounded by the uploads and the bots that look suspicious (an
honest bot does about one time in twenty at any moment).
"""

from __future__ import annotations

from arena.ratings.audit import LEANS_P
from arena.ratings.telling import memory_table
from arena.store import Database, get_match
from arena.store.hindsights import documents, judged_entrants, judged_matches_of, trials_of

FIRST_JUDGED = 8
RECENT = 40


def urgent(db: Database, match_id: int) -> str | None:
    """Why this match must be judged at once (None: it can wait)."""
    with db.session(read_only=True) as s:
        seats = get_match(s, match_id).seats
        versions = sorted({seats[e] for e in judged_entrants(s, seats)})
        for version in versions:
            judged = [m for m in judged_matches_of(s, version, RECENT) if m != match_id]
            if len(judged) < FIRST_JUDGED:
                return f"bot version {version} has {len(judged)} judged matches"
            p = memory_table(trials_of(documents(s, judged)), version).p
            if p is not None and p <= LEANS_P:
                return f"bot version {version} leans to the truth in later games (p = {p:.3g})"
    return None
