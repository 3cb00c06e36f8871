"""An owner's challenge, played for real (sandboxed bot processes, as `arena ladder run`
plays it): one unrated match against the opponents chosen; the quota, the rights and the
opponents' rules hold."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select

from arena.challenges.start import PER_DAY, start_challenge, unplayed
from arena.comparisons.errors import ComparisonRefused
from arena.readmodels.challenges import challenges_panel
from arena.runtime import Runtime
from arena.store import Bot, Database, RatingSnapshot, Tournament, create_user
from arena.store.models import Challenge
from arena.submissions import set_retired
from arena.tournaments.executor import play_matches
from tests.ladders.test_ladder_run import open_pagat
from tests.services.conftest import sample_copy, valid_bot

RIVALS = ("house:heuristic", "house:random", "house:random#2")


def owned_bot(db: Database, runtime: Runtime, folder: Path, name: str, owner: str) -> int:
    valid_bot(db, runtime, sample_copy(folder, name, "heuristic", "1.0"))
    with db.session() as s:
        user = create_user(s, owner, "correct horse battery")
        bot = s.scalar(select(Bot).where(Bot.name == name))
        bot.owner_id = user.id
        return user.id


def test_a_challenge_is_played_once_and_rated_nowhere(
    db: Database, runtime: Runtime, tmp_path: Path
) -> None:
    open_pagat(db, deals=1, games=4)
    alice = owned_bot(db, runtime, tmp_path / "a", "mine", "alice")
    match_id = start_challenge(db, runtime, "mine@1.0", RIVALS, alice)
    assert unplayed(db) == [match_id]
    play_matches(db, runtime, unplayed(db), 1, lambda status: None)
    assert unplayed(db) == []  # and its tournament closed on the way
    with db.session(read_only=True) as s:
        challenge = s.scalar(select(Challenge))
        assert s.get_one(Tournament, challenge.tournament_id).status == "done"
        assert s.scalars(select(RatingSnapshot)).all() == []  # unrated
        bot_id = s.scalar(select(Bot.id).where(Bot.name == "mine"))
        panel = challenges_panel(s, bot_id, alice)
    [row] = panel.challenges
    assert (row.match_id, row.status, row.version) == (match_id, "done", "mine@1.0")
    assert set(row.points) == {"mine@1.0", "house-heuristic", "house-random", "house-random-2"}
    assert panel.left == PER_DAY - 1 and "house:master" in panel.opponents


def test_quota_rights_and_opponents(db: Database, runtime: Runtime, tmp_path: Path) -> None:
    open_pagat(db, deals=1, games=4)
    alice = owned_bot(db, runtime, tmp_path / "a", "mine", "alice")
    bob = owned_bot(db, runtime, tmp_path / "b", "theirs", "bob")
    with pytest.raises(ComparisonRefused, match="only the owner") as refused:
        start_challenge(db, runtime, "mine@1.0", RIVALS, bob)
    assert refused.value.status == 403
    with pytest.raises(ComparisonRefused, match="3 different opponents"):
        start_challenge(db, runtime, "mine@1.0", ("house:random", "house:random"), alice)
    start_challenge(db, runtime, "mine@1.0", ("theirs@1.0", *RIVALS[:2]), alice)  # bob's bot
    set_retired(db, "theirs", True)
    with pytest.raises(ComparisonRefused, match="retired"):
        start_challenge(db, runtime, "mine@1.0", ("theirs@1.0", *RIVALS[:2]), alice)
    for _ in range(PER_DAY - 1):
        start_challenge(db, runtime, "mine@1.0", RIVALS, alice)
    with pytest.raises(ComparisonRefused, match="challenges in 24 hours") as spent:
        start_challenge(db, runtime, "mine@1.0", RIVALS, alice)
    assert spent.value.status == 429
    start_challenge(db, runtime, "mine@1.0", RIVALS, None)  # the command line has no quota
