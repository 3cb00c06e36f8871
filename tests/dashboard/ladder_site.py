"""A standing ladder with ranked and placing entrants, for the ladder's pages, API and
browser tests.

Four contestants (each of its own owner, one named like an XSS attack) and the house
anchors play the pagat ladder, one deal a game. The ladder's own feeder schedules every
match; house bots play them in the contestants' seats (contestants' results without a
sandbox), each recorded as lasting ``MATCH_SECONDS``, with a rating snapshot after each
batch, until every contestant is placed and two snapshots give trends. Then a fifth
contestant arrives and its first placement match is scheduled, not played. A second,
empty ladder (bhoos) is open beside it.

``build`` takes its cast (names, owners, how each seat plays) as a ``Cast``, so that
scripts/screenshots builds a realistic ladder the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from arena.house.names import house_player
from arena.ladders.entrants import open_ladder
from arena.ladders.feed import feed
from arena.players.player import Player
from arena.readmodels.ladder import ladder_view
from arena.referee import play_match
from arena.runtime import Runtime
from arena.store import (
    BotVersion,
    Database,
    add_bot_version,
    claim_match,
    create_user,
    record_result,
)
from arena.store.models import Ladder
from arena.tournaments.run import match_spec
from arena.tournaments.spec import TournamentSpec
from arena.tournaments.standings import snapshot
from tests.dashboard.conftest import XSS
from tests.dashboard.users import PASSWORD

PLACEMENT = 3
MATCH_SECONDS = 120.0  # one match in flight: a newcomer's first match in about 2 min
CONTESTANTS = ("ann", "bea", XSS, "cat")
NEWCOMER = "dan"
MAX_BATCHES = 8


def random_seat(version: BotVersion, seat: int) -> Player:
    """Every seat played by the random house bot (contestants' results without a sandbox)."""
    return house_player("random", seat)


@dataclass(frozen=True)
class Cast:
    """Who plays: the contestants, then the newcomer, each of its own new owner (``owners``
    by name, in that order; default ``owner0``, ``owner1``...), and the player of a seat."""

    contestants: tuple[str, ...] = CONTESTANTS
    newcomer: str = NEWCOMER
    owners: tuple[str, ...] = ()
    seat: Callable[[BotVersion, int], Player] = random_seat

    def owner(self, number: int) -> str:
        return self.owners[number] if self.owners else f"owner{number}"


@dataclass(frozen=True)
class LadderSite:
    ladder_id: int
    tournament_id: int  # the ladder's matches' row
    bots: dict[str, int]  # contestant name -> bot id (the newcomer's included)
    played: list[int]
    scheduled: int  # the newcomer's first placement match, not played


def build(db: Database, runtime: Runtime, cast: Cast = Cast()) -> LadderSite:
    pagat = TournamentSpec.from_options(rules="pagat", deals=1)
    # random play in every seat: equal bots, so only separation may settle it (never, here)
    ladder_id = open_ladder(db, pagat, placement_matches=PLACEMENT, settle_half_width=0.1)
    open_ladder(db, TournamentSpec.from_options(rules="bhoos", deals=1))
    bots = {
        name: contestant(db, runtime, name, cast.owner(i))
        for i, name in enumerate(cast.contestants)
    }
    with db.session(read_only=True) as s:
        tournament_id = s.get_one(Ladder, ladder_id).tournament_id
    played: list[int] = []
    snapshots = 0
    for _ in range(MAX_BATCHES):
        matches = feed(db, runtime, ladder_id)
        for match_id in matches:
            play(db, match_id, cast.seat)
        played += matches
        snapshots += snapshot(db, tournament_id)
        with db.session(read_only=True) as s:
            if snapshots >= 2 and not ladder_view(s, "pagat").placing:
                break
    else:
        raise AssertionError("the contestants were never all placed")
    newcomer_owner = cast.owner(len(cast.contestants))
    bots[cast.newcomer] = contestant(db, runtime, cast.newcomer, newcomer_owner)
    (scheduled,) = feed(db, runtime, ladder_id, depth=1)
    return LadderSite(ladder_id, tournament_id, bots, played, scheduled)


def contestant(db: Database, runtime: Runtime, name: str, owner_name: str) -> int:
    """A valid (not house) bot of its own new owner; its id."""
    with db.session() as s:
        owner = create_user(s, owner_name, PASSWORD)
        manifest = {"name": name, "version": "1"}
        version = add_bot_version(
            s, runtime.blobs, f"bot {name}".encode(), manifest, "valid", owner=owner
        )
        return version.bot_id


def play(db: Database, match_id: int, seat: Callable[[BotVersion, int], Player]) -> None:
    """The scheduled match played by ``seat``'s players, recorded as the match job records
    it."""
    spec, versions = match_spec(db, match_id)
    result = play_match(spec, [seat(v, i) for i, v in enumerate(versions)])
    with db.session() as s:
        record_result(s, claim_match(s, match_id, "test"), result, MATCH_SECONDS)
