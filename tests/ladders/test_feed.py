"""Feeding a ladder from the database: who is seated, what is scheduled, when it stops."""

from __future__ import annotations

import math
from datetime import timedelta

import pytest
from sqlalchemy import select, update

from arena.house.names import house_player
from arena.ladders.entrants import ANCHORS, ensure_ladder, open_ladder
from arena.ladders.feed import WIDE, feed, ladder_state
from arena.ladders.matchmaking import LadderState
from arena.players.player import Player
from arena.ratings import ELO_CENTER
from arena.ratings.games import Z95
from arena.ratings.successors import SUCCESSOR_SD
from arena.runtime import Runtime
from arena.store import (
    BotVersion,
    Database,
    Match,
    add_bot_version,
    create_user,
    game_rows,
    list_tournaments,
)
from arena.store.ladders import get_ladder
from arena.store.models import Bot, Ladder, User, utcnow
from arena.tournaments.adaptive import Ranked
from arena.tournaments.dispatch import MATCH_PRIORITY, PLACEMENT_PRIORITY, Job, matches_to_send
from arena.tournaments.spec import TournamentSpec
from arena.tournaments.standings import cached_standings, finish_tournament, rank
from arena.tournaments.successions import predecessors
from tests.dashboard.ladder_site import play
from tests.services.test_executor import house_only, tournament
from tests.support import both_databases


def upload(db: Database, runtime: Runtime, owner: str, bot: str, version: str = "1") -> int:
    """A valid version of ``bot`` owned by ``owner`` (no process: the feed never starts one)."""
    with db.session() as s:
        user = s.scalar(select(User).where(User.name == owner)) or create_user(
            s, owner, "pw-pw-pw-1"
        )
        manifest = {"name": bot, "version": version, "command": ["python", "bot.py"]}
        archive = f"{bot}@{version} {owner}".encode()
        return add_bot_version(s, runtime.blobs, archive, manifest, "valid", owner=user).id


def seats_of(db: Database, ids: list[int]) -> list[list[int]]:
    with db.session(read_only=True) as s:
        return [s.get_one(Match, i).seats for i in ids]


@pytest.fixture
def ladder_id(db: Database) -> int:
    return ensure_ladder(db)


def test_the_default_ladder_opens_once_and_is_no_tournament(db: Database) -> None:
    first = ensure_ladder(db)
    assert ensure_ladder(db) == first
    with db.session(read_only=True) as s:
        ladder = get_ladder(s, "pagat")
        assert ladder.id == first and ladder.tournament.kind == "ladder"
        assert ladder.tournament.status == "running"
        assert list_tournaments(s) == []


@both_databases
def test_a_new_bot_is_placed_against_the_anchors(
    db: Database, store_runtime: Runtime, ladder_id: int
) -> None:
    version = upload(db, store_runtime, "ann", "alpha")
    ids = feed(db, store_runtime, ladder_id)
    assert len(ids) == 8  # the default depth, all of them placements
    assert all(version in seats for seats in seats_of(db, ids))
    with db.session(read_only=True) as s:
        entries = s.get_one(Ladder, ladder_id).tournament.entries
        assert len(entries) == 1 + len(ANCHORS)
    assert feed(db, store_runtime, ladder_id) == []  # the queue is full


def test_a_new_version_replaces_the_old_and_a_retired_bot_leaves(
    db: Database, store_runtime: Runtime, ladder_id: int
) -> None:
    old = upload(db, store_runtime, "ann", "alpha", "1")
    other = upload(db, store_runtime, "bob", "beta")
    feed(db, store_runtime, ladder_id)
    _play_all(db, ladder_id)
    new = upload(db, store_runtime, "ann", "alpha", "2")
    ids = feed(db, store_runtime, ladder_id)
    seated = {v for seats in seats_of(db, ids) for v in seats}
    assert new in seated and old not in seated
    assert all(new in seats for seats in seats_of(db, ids))  # placement first
    _play_all(db, ladder_id)
    with db.session() as s:
        s.execute(update(Bot).where(Bot.name == "beta").values(retired_at=utcnow()))
    ids = feed(db, store_runtime, ladder_id)
    assert ids and not any(other in seats for seats in seats_of(db, ids))


def test_a_paused_or_capped_ladder_schedules_no_more(
    db: Database, store_runtime: Runtime, ladder_id: int
) -> None:
    upload(db, store_runtime, "ann", "alpha")
    with db.session() as s:
        s.get_one(Ladder, ladder_id).paused = True
    assert feed(db, store_runtime, ladder_id) == []
    with db.session() as s:
        ladder = s.get_one(Ladder, ladder_id)
        ladder.paused, ladder.matches_per_hour = False, 3
    assert len(feed(db, store_runtime, ladder_id)) == 3
    _play_all(db, ladder_id)
    assert feed(db, store_runtime, ladder_id) == []  # three this hour already
    with db.session() as s:  # an hour later
        s.execute(update(Match).values(created_at=utcnow() - timedelta(hours=2)))
    assert len(feed(db, store_runtime, ladder_id)) == 3


def test_the_ladder_never_finishes(db: Database, store_runtime: Runtime, ladder_id: int) -> None:
    upload(db, store_runtime, "ann", "alpha")
    feed(db, store_runtime, ladder_id)
    _play_all(db, ladder_id)
    with db.session(read_only=True) as s:
        tournament_id = s.get_one(Ladder, ladder_id).tournament_id
    finish_tournament(db, tournament_id)
    with db.session(read_only=True) as s:
        assert s.get_one(Ladder, ladder_id).tournament.status == "running"


def test_with_no_contestant_the_anchors_do_not_play_alone(
    db: Database, store_runtime: Runtime, ladder_id: int
) -> None:
    """Three house anchors and nobody else: no table (a fourth seat is missing)."""
    assert feed(db, store_runtime, ladder_id) == []
    with db.session(read_only=True) as s:
        versions = s.scalars(select(BotVersion)).all()
    assert len(versions) == len(ANCHORS)


def test_placement_matches_are_sent_before_the_settling_ones(
    db: Database, store_runtime: Runtime, ladder_id: int
) -> None:
    """A version that has not finished its placement matches (here 2) gets its tables sent
    ahead of the ladder's other matches; once placed, its matches wait their turn like any."""
    with db.session() as s:
        ladder = s.get_one(Ladder, ladder_id)
        ladder.placement_matches, tournament_id = 2, ladder.tournament_id
    alpha = upload(db, store_runtime, "ann", "alpha")
    feed(db, store_runtime, ladder_id)
    first = matches_to_send(db, tournament_id)
    assert all(alpha in seats for seats in _sent(db, first)[1])  # the one contestant
    assert [j.priority for j in first] == [PLACEMENT_PRIORITY] * 8  # none of them played
    _play_all(db, ladder_id)
    beta = upload(db, store_runtime, "bob", "beta")
    feed(db, store_runtime, ladder_id)
    second = matches_to_send(db, tournament_id)
    for match_id, seats in zip(*_sent(db, second), strict=True):
        expected = PLACEMENT_PRIORITY if beta in seats else MATCH_PRIORITY
        assert {j.priority for j in second if j.match_id == match_id} == {expected}
    assert {j.priority for j in second} == {PLACEMENT_PRIORITY, MATCH_PRIORITY}


def test_a_tournaments_matches_are_no_placements(db: Database, store_runtime: Runtime) -> None:
    """Its bots have no match done either; only a ladder places."""
    tid = tournament(db, store_runtime, house_only(db, store_runtime), tables=3)
    assert [j.priority for j in matches_to_send(db, tid)] == [MATCH_PRIORITY] * 3


def _sent(db: Database, jobs: list[Job]) -> tuple[list[int], list[list[int]]]:
    ids = [j.match_id for j in jobs]
    return ids, seats_of(db, ids)


def _play_all(db: Database, ladder_id: int) -> None:
    """Mark every scheduled match done (no games: enough for counting placements)."""
    with db.session() as s:
        tournament_id = s.get_one(Ladder, ladder_id).tournament_id
        s.execute(
            update(Match)
            .where(Match.tournament_id == tournament_id, Match.status == "pending")
            .values(status="done")
        )


def _played_ladder(db: Database, runtime: Runtime, settle: float, batches: int = 3) -> int:
    """A one-deal pagat ladder (placement 2 matches, settle width ``settle``) whose feeder's
    matches are played by house bots in-process, ``batches`` top-ups of them: "alpha"
    by the heuristic bot, every other seat by the random one. Its id."""
    spec = TournamentSpec.from_options(rules="pagat", deals=1)
    ladder_id = open_ladder(db, spec, placement_matches=2, settle_half_width=settle)
    for _ in range(batches):
        for match_id in feed(db, runtime, ladder_id):
            play(db, match_id, strong_alpha)
    return ladder_id


def strong_alpha(version: BotVersion, seat: int) -> Player:
    kind = "heuristic" if version.bot.name == "alpha" else "random"
    return house_player(kind, seat)


def _standing(state: LadderState, version: int) -> Ranked:
    return next(r for r in state.standings if r.name == str(version))


def test_a_new_version_starts_where_its_predecessor_stands(
    db: Database, store_runtime: Runtime
) -> None:
    """Alpha 1 plays well above the rest; alpha 2 enters at alpha 1's Elo with a wider
    interval (a new bot at 1500, wide open), and once it plays, the ladder's fit holds it
    nearer alpha 1 than its own few games would."""
    first = upload(db, store_runtime, "ann", "alpha", "1")
    upload(db, store_runtime, "bob", "beta")
    ladder_id = _played_ladder(db, store_runtime, settle=50.0)
    second = upload(db, store_runtime, "ann", "alpha", "2")
    newcomer = upload(db, store_runtime, "cat", "gamma")
    with db.session(read_only=True) as s:
        ladder = s.get_one(Ladder, ladder_id)
        state = ladder_state(s, ladder)
        old = next(
            st.rating
            for st in cached_standings(s, ladder.tournament_id)
            if st.bot_version_id == first
        )
    assert old.elo > 1600  # the heuristic among random bots
    start, fresh = _standing(state, second), _standing(state, newcomer)
    assert start.elo == old.elo and start.games == 0
    assert start.ci_high - start.ci_low == pytest.approx(
        2 * math.hypot(max(old.elo - old.ci_low, old.ci_high - old.elo), Z95 * SUCCESSOR_SD)
    )
    assert (fresh.elo, fresh.ci_low, fresh.ci_high) == (ELO_CENTER, *WIDE)

    (match_id, *_) = feed(db, store_runtime, ladder_id)
    with db.session(read_only=True) as s:
        assert second in s.get_one(Match, match_id).seats  # its placement comes first
    play(db, match_id, strong_alpha)
    with db.session(read_only=True) as s:
        tournament_id = s.get_one(Ladder, ladder_id).tournament_id
        told = {st.bot_version_id: st.rating for st in cached_standings(s, tournament_id)}
        plain = {st.bot_version_id: st.rating for st in rank(s, game_rows(s, tournament_id))}
    assert abs(told[second].elo - told[first].elo) < abs(plain[second].elo - plain[first].elo)


def test_a_predecessor_is_the_bots_previous_valid_version_among_those_named(
    db: Database, store_runtime: Runtime
) -> None:
    one = upload(db, store_runtime, "ann", "alpha", "1")
    two = upload(db, store_runtime, "ann", "alpha", "2")
    three = upload(db, store_runtime, "ann", "alpha", "3")
    other = upload(db, store_runtime, "bob", "beta")
    with db.session() as s:
        s.get_one(BotVersion, two).status = "rejected"
    with db.session(read_only=True) as s:
        assert predecessors(s, [one, two, three, other]) == {two: one, three: one}
        assert predecessors(s, [three], among=[two]) == {}  # not valid
        assert predecessors(s, [three, other], among=[one, other]) == {three: one}
