"""The urgent matches, which a worker judges at once on up to twice its budget's share:
where the audit's answer matters most and soonest.

- A bot version's first ``FIRST_JUDGED`` judged matches: a new upload is where a cheat
  comes in, and its placement is where it would climb. A full memory cheat is flagged in
  about four judged matches, so it is caught while it is placed.
- A bot version whose judged matches so far already lean its way: the memory test on its
  latest ``RECENT`` judged matches at p <= ``LEANS_P`` (0.05), far above the audit's own
  threshold, so that the evidence for or against it comes at the pace of its play (an
  honest bot is there about one time in twenty at any moment).
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
        judged = {
            v: [m for m in judged_matches_of(s, v, RECENT) if m != match_id] for v in versions
        }
        for version in versions:
            if len(judged[version]) < FIRST_JUDGED:
                return f"bot version {version} has {len(judged[version])} judged matches"
        # the versions' recent judgings, read once: they share most of their matches
        trials = trials_of(documents(s, {m for ms in judged.values() for m in ms}))
    for version in versions:
        recent = set(judged[version])
        p = memory_table([t for t in trials if t.match in recent], version).p
        if p is not None and p <= LEANS_P:
            return f"bot version {version} leans to the truth in later games (p = {p:.3g})"
    return None
