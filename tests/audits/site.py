"""Hindsight test data: a finished match of two non-house entrants (alice's bot, entrant 0;
bob's, entrant 1) and two house bots, played in-process (``tests/analysis_runs/site.py``),
and a made-up judging of it stored as a worker would, so tests above the store need not
pay for the master."""

from __future__ import annotations

import sys
from pathlib import Path

from arena.analysis.hindsight import Hindsight, Telling
from arena.audits.suspects import FIRST_JUDGED
from arena.store import BlobStore, Database, get_match
from arena.store.hindsights import claim_hindsight, store_hindsight, unfinished
from tests.analysis_runs.site import play, tables_of


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


def honest(entrant: int) -> Hindsight:
    """Follows the truth as often in the first game as in the later ones."""
    followed = ("truth", "knowledge")
    return Hindsight(
        entrant, 8, tuple(telling(g, 10 + 2 * g + i, followed[i]) for g in (0, 1) for i in (0, 1))
    )


def cheat(entrant: int) -> Hindsight:
    """Follows its knowledge in the first game, the truth in every later one."""
    first = [telling(0, 10 + i, "knowledge") for i in (0, 1)]
    return Hindsight(entrant, 8, (*first, *(telling(1, 20 + i, "truth") for i in range(3))))


def history(db: Database, tmp_path: Path, entrant_0) -> int:
    """``FIRST_JUDGED`` matches judged (entrant 0 as ``entrant_0`` makes it, entrant 1
    honest), and one more played: its id."""
    *judged, last = tables_of(db, BlobStore(tmp_path / "blobs"), FIRST_JUDGED + 1)
    for match_id in judged:
        play(db, match_id)
        store_made_up(db, match_id, [entrant_0(0), honest(1)])
    play(db, last)
    return last
