"""Hindsight test data: a finished match of two non-house entrants (alice's bot, entrant 0;
bob's, entrant 1) and two house bots, played in-process (``tests/analysis_runs/site.py``),
and a made-up judging of it stored as a worker would, so tests above the store need not
pay for the master."""

from __future__ import annotations

import sys

from arena.analysis.hindsight import Hindsight, Telling
from arena.store import Database, get_match
from arena.store.hindsights import claim_hindsight, store_hindsight, unfinished


def telling(game: int, step: int, followed: str, seen: int | None = None) -> Telling:
    return Telling(game, 0, step, 100 + step, "play", "AS", "AS", "2C", followed, seen)


# entrant 0 follows the truth in the later game (twice), the knowledge in the first; with
# entrant 1's hand added it follows the truth; "neither" is no trial
MADE_UP = [
    Hindsight(
        0,
        20,
        (
            telling(0, 10, "knowledge"),
            telling(0, 11, "neither"),
            telling(1, 12, "truth"),
            telling(1, 13, "truth"),
            telling(1, 14, "truth", seen=1),
            telling(0, 15, "knowledge", seen=2),
        ),
    ),
    Hindsight(1, 18, (telling(1, 20, "knowledge"), telling(0, 21, "truth", seen=0))),
]


def store_made_up(db: Database, match_id: int, judged: list[Hindsight] = MADE_UP) -> None:
    """Claim the match's queued hindsight and store ``judged`` as its result."""
    with db.session() as s:
        [hindsight_id] = unfinished(s, get_match(s, match_id).tournament_id)
        lease = claim_hindsight(s, hindsight_id, "test-worker")
        assert lease is not None
        assert store_hindsight(s, lease, [h.to_dict() for h in judged], 1.5)


def fake_judging(monkeypatch, body) -> None:
    """The master's judging replaced by ``body(progress)`` (the tests of the plumbing)."""

    def judged(record, entrants, seed=0, progress=None):
        return body(progress)

    monkeypatch.setattr(sys.modules["arena.audits.run"], "match_hindsight", judged)
