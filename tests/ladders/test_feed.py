"""Feeding a ladder from the database: who is seated, what is scheduled, when it stops."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select, update

from arena.ladders.entrants import ANCHORS, ensure_ladder
from arena.ladders.feed import feed
from arena.runtime import Runtime
from arena.store import BotVersion, Database, Match, add_bot_version, create_user, list_tournaments
from arena.store.ladders import get_ladder
from arena.store.models import Bot, Ladder, User, utcnow
from arena.tournaments.dispatch import MATCH_PRIORITY, PLACEMENT_PRIORITY, Job, matches_to_send
from arena.tournaments.standings import finish_tournament
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
