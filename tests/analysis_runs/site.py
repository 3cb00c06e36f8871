"""A finished match to analyse, played in-process in a few milliseconds: one table of one
game (``deals`` deals); entrant 0 is alice's bot, entrant 1 bob's, 2 and 3 house bots; carol
is an organiser. A second table of the same players is left pending (not finished)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from sqlalchemy import select

from arena.game import PAGAT
from arena.house.names import house_player
from arena.referee import Clock, play_match
from arena.store import (
    BlobStore,
    Database,
    Match,
    User,
    add_bot_version,
    claim_match,
    create_tournament,
    create_user,
    record_result,
)
from arena.tournaments.run import match_spec
from arena.tournaments.spec import TournamentSpec

PASSWORD = "correct horse battery"


@dataclass(frozen=True)
class Played:
    match_id: int  # finished
    pending_id: int  # not played
    users: dict[str, User]  # alice and bob own entrants 0 and 1; carol is an organiser


def played_match(db: Database, blobs: BlobStore, deals: int = 1) -> Played:
    finished, pending = tables_of(db, blobs, 2, deals)
    play(db, finished)
    return Played(finished, pending, _users(db))


def tables_of(db: Database, blobs: BlobStore, count: int, deals: int = 1) -> list[int]:
    """A tournament's ``count`` tables, none played yet, of one game each: alice's bot,
    bob's and two house bots, in that order."""
    with db.session() as s:
        users = {
            name: create_user(s, name, PASSWORD, admin=name == "carol")
            for name in ("alice", "bob", "carol")
        }
        bots = [
            add_bot_version(s, blobs, name.encode(), _manifest(name), "valid", owner=users[owner])
            for name, owner in (("alice-bot", "alice"), ("bob-bot", "bob"))
        ]
        house = [
            add_bot_version(s, blobs, kind.encode(), _manifest(kind, kind), "valid")
            for kind in ("random", "heuristic")
        ]
        spec = TournamentSpec(name="cup", rules=PAGAT.with_(deals_per_game=deals), seed=7)
        spec = replace(spec, games_per_match=1, clock=Clock(1000, 5000, 5000))
        tables = [(i, (0, 1, 2, 3), 101 + i) for i in range(count)]
        t = create_tournament(s, spec.columns(), [*bots, *house], tables)
        query = select(Match.id).where(Match.tournament_id == t.id).order_by(Match.id)
        return list(s.scalars(query))


def _users(db: Database) -> dict[str, User]:
    with db.session(read_only=True) as s:
        return {u.name: u for u in s.scalars(select(User).order_by(User.id))}


def _manifest(name: str, house: str | None = None) -> dict:
    if house is not None:
        return {"name": f"house-{house}", "version": "1", "house": house}
    return {"name": name, "version": "1", "command": ["python3", "bot.py"]}


def play(db: Database, match_id: int) -> None:
    """The match played by house strategies in this process, recorded as its bots' result."""
    spec, _ = match_spec(db, match_id)
    kinds = ("heuristic", "random", "heuristic", "random")
    result = play_match(spec, [house_player(kind, i) for i, kind in enumerate(kinds)])
    with db.session() as s:
        record_result(s, claim_match(s, match_id, "test"), result, 0.1)
