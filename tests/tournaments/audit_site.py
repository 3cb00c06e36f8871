"""A stored tournament with a cheat and a colluding pair, played by the real referee with
in-process house bots and recorded by the real store: the audit's test data.

Stand-ins, drastic so a few short matches show them: "cheat" plays like the random bot in
the first game of each match and like the heuristic in the later ones (what remembering
the hands does, exaggerated); "pal-a" and "pal-b" (one owner) play like the heuristic when
both sit at the table and like the random bot apart. "honest" and "plain" are heuristics,
"dice" is the random bot; "plain" and "dice" have no owner (the operator's), so they are a
same-owner pair too, an honest one.
"""

from __future__ import annotations

import shutil
from itertools import combinations
from pathlib import Path

from sqlalchemy import select

from arena.game import PAGAT
from arena.house import HeuristicBot, RandomBot
from arena.players.inprocess import InProcessPlayer
from arena.referee import Clock, play_match
from arena.store import (
    BlobStore,
    Database,
    Match,
    add_bot_version,
    claim_match,
    create_tournament,
    create_user,
    record_result,
)
from arena.tournaments.run import match_spec
from arena.tournaments.spec import TournamentSpec

PASSWORD = "correct horse battery"
RULES = PAGAT.with_(deals_per_game=2)
CLOCK = Clock(decision_ms=1000, bank_ms=5000, startup_ms=5000)
# name, owner
BOTS = (
    ("cheat", "alice"),
    ("honest", "bob"),
    ("pal-a", "carol"),
    ("pal-b", "carol"),
    ("plain", None),
    ("dice", None),
)
TABLES = [table for _ in range(2) for table in combinations(range(6), 4)]  # 30 matches


class Switching(InProcessPlayer):
    """The heuristic when ``strong(game)`` says so, else the random bot."""

    def __init__(self, name: str, seed: int, strong) -> None:
        super().__init__(HeuristicBot(seed), name)
        self.weak, self.strong = RandomBot(seed), strong

    def decide(self, request, timeout_s):
        if self.strong(request.game):
            return super().decide(request, timeout_s)
        obs = request.observation
        return self.weak.call(obs) if request.kind == "call" else self.weak.play(obs)


def fill(db: Database, blobs: BlobStore, matches: int = len(TABLES)) -> int:
    """Store the bots and play ``matches`` of the tournament's tables; its id."""
    with db.session() as s:
        users = {
            name: create_user(s, name, "a long password") for name in ("alice", "bob", "carol")
        }
        versions = [
            add_bot_version(
                s,
                blobs,
                name.encode(),
                {"name": name, "version": "1", "house": "heuristic"},
                "valid",
                owner=users.get(owner),
            )
            for name, owner in BOTS
        ]
        # every 4 of the 6 bots twice, the seating turned a seat each table
        tables = [(i, t[i % 4 :] + t[: i % 4], 1000 + i) for i, t in enumerate(TABLES)]
        spec = TournamentSpec(name="audit", rules=RULES, games_per_match=4, clock=CLOCK, seed=7)
        t = create_tournament(s, spec.columns(), versions, tables)
        query = select(Match.id).where(Match.tournament_id == t.id).order_by(Match.table_index)
        match_ids = list(s.scalars(query))
        tournament_id = t.id
    for match_id in match_ids[:matches]:
        _play(db, match_id)
    return tournament_id


def copy_played(played: Path, dest: Path) -> Path:
    """A copy in ``dest`` of the folder the ``audit_played`` fixture played the tournament in
    (its ``arena.db`` and ``blobs``); the database file's path."""
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copy(played / "arena.db", dest / "arena.db")
    shutil.copytree(played / "blobs", dest / "blobs")
    return dest / "arena.db"


def _play(db: Database, match_id: int) -> None:
    with db.session() as s:
        lease = claim_match(s, match_id, "test")
    spec, versions = match_spec(db, match_id)
    names = [v.bot.name for v in versions]
    together = {"pal-a", "pal-b"} <= set(names)
    players = [_player(name, 10 * match_id + k, together) for k, name in enumerate(names)]
    with db.session() as s:
        record_result(s, lease, play_match(spec, players), 0.1)


def _player(name: str, seed: int, together: bool) -> InProcessPlayer:
    if name == "cheat":
        return Switching(name, seed, lambda game: game > 0)
    if name.startswith("pal-"):
        return Switching(name, seed, lambda game: together)
    if name == "dice":
        return InProcessPlayer(RandomBot(seed), name)
    return InProcessPlayer(HeuristicBot(seed), name)
