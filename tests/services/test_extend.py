"""Extra matches on real tournaments (house bots, embedded executor, SQLite):
``extend`` after a run, a create-time budget played in rounds, the stored rating model, and
refusals."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from arena.game import PAGAT
from arena.ratings import fit
from arena.runtime import Runtime
from arena.store import (
    Bot,
    BotVersion,
    Database,
    StoreError,
    Tournament,
    add_bot_version,
    create_user,
    game_rows,
    latest_rating_snapshot,
)
from arena.tournaments.create import new_tournament
from arena.tournaments.executor import run_tournament
from arena.tournaments.extend import ADAPTIVE_ROUND, extend_tournament
from arena.tournaments.spec import TournamentSpec
from arena.tournaments.standings import standings
from tests.services.conftest import house_entrant
from tests.services.test_executor import (
    HOUSE,
    assert_counted_once,
    assert_sensible_standings,
    matches,
    tournament_status,
)

EXTRA = ("house-extra-1", "house-extra-2", "house-extra-3")


def create(db: Database, runtime: Runtime, **options) -> int:
    """Six bots that play in-process (heuristic and random house bots), 6 tables."""
    for name, kind in zip(EXTRA, ("heuristic", "random", "heuristic"), strict=True):
        with db.session(read_only=True) as s:
            known = s.scalar(select(Bot.id).where(Bot.name == name))
        if known is None:
            house_entrant(db, runtime, name, kind)
    rules = PAGAT.with_(deals_per_game=1)
    refs = [*HOUSE, *EXTRA]
    options = {"games_per_match": 4, "seed": 3, "tables": 6, **options}
    return new_tournament(db, runtime, TournamentSpec(refs, rules, **options)).id


def stored(db: Database, tournament_id: int) -> Tournament:
    with db.session(read_only=True) as s:
        return s.get(Tournament, tournament_id)


def test_extend_adds_neighbour_tables_that_a_second_run_plays(db, store_runtime):
    tid = create(db, store_runtime)
    run_tournament(db, store_runtime, tid, workers=1)
    assert tournament_status(db, tid) == "done"
    ranking = [row.bot_version_id for row in standings(db, tid)]
    before = {m.id for m in matches(db, tid)}

    added = extend_tournament(db, tid, 3)

    assert tournament_status(db, tid) == "running"  # no longer done: it has matches to play
    new = [m for m in matches(db, tid) if m.id not in before]
    assert sorted(m.id for m in new) == sorted(added) and len(new) == 3
    assert [m.table_index for m in new] == [6, 7, 8]
    for m in new:
        assert m.status == "pending" and len(set(m.seats)) == 4
        places = {ranking.index(bot) for bot in m.seats}
        assert any({p, p + 1, p + 2} <= places for p in places)  # 3 neighbours and an anchor
    summary = run_tournament(db, store_runtime, tid, workers=2)
    assert summary.counts == {"done": 3}
    assert summary.status == {"pending": 0, "running": 0, "done": 9, "failed": 0}
    assert tournament_status(db, tid) == "done"
    assert_counted_once(db, tid, games=4)
    assert_sensible_standings(db, tid, games=4, deals=1)
    with db.session(read_only=True) as s:
        assert latest_rating_snapshot(s, tid).payload["done"] == 9


def test_a_create_time_budget_is_played_in_rounds_by_one_run(db, store_runtime):
    budget = ADAPTIVE_ROUND + 2
    tid = create(db, store_runtime, adaptive_matches=budget, adaptive_top=3)
    seen = []
    summary = run_tournament(db, store_runtime, tid, 1, lambda *a: seen.append(a))

    assert summary.counts == {"done": 6 + budget}
    assert summary.status["done"] == 6 + budget and tournament_status(db, tid) == "done"
    assert stored(db, tid).adaptive_matches == 0
    assert [total for _, _, total in seen] == [6] * 6 + [6 + ADAPTIVE_ROUND] * 4 + [12] * 2
    assert_counted_once(db, tid, games=4)
    assert_sensible_standings(db, tid, games=4, deals=1)
    again = run_tournament(db, store_runtime, tid, workers=1)  # the budget is spent
    assert again.counts == {} and len(matches(db, tid)) == 6 + budget


@pytest.mark.parametrize("model", ["margin", "bradley-terry"])
def test_standings_use_the_tournaments_rating_model(db, store_runtime, model):
    tid = create(db, store_runtime, rating_model=model)
    run_tournament(db, store_runtime, tid, workers=1)
    assert stored(db, tid).rating_model == model
    with db.session(read_only=True) as s:
        rows = game_rows(s, tid)
        snapshot = latest_rating_snapshot(s, tid).payload
    expected = fit(rows.games, rows.groups, model=model)
    table = standings(db, tid)
    assert {row.bot_version_id: row.rating for row in table} == expected
    assert snapshot["model"] == model


def test_bad_extensions_are_refused_and_write_nothing(db, store_runtime):
    tid = create(db, store_runtime)
    count = len(matches(db, tid))
    with pytest.raises(StoreError, match="at least 1"):
        extend_tournament(db, tid, 0)
    with pytest.raises(StoreError, match="--top"):
        extend_tournament(db, tid, 2, top=7)
    with pytest.raises(StoreError, match="no tournament"):
        extend_tournament(db, tid + 100, 2)
    with pytest.raises(StoreError, match="unknown rating model"):
        create(db, store_runtime, rating_model="vibes")
    assert len(matches(db, tid)) == count
    assert len(extend_tournament(db, tid, 2)) == 2  # before any result: all equally unsure


def test_extra_matches_seat_no_two_bots_of_one_owner_unless_allowed(db, store_runtime):
    """ann owns three of six bots: every table, scheduled or extra, holds one of them."""
    with db.session() as s:
        ann = create_user(s, "ann", "correct horse battery")
        for name in ("ann-a", "ann-b", "ann-c", "bo", "cy", "di"):
            manifest = {"name": name, "version": "1", "command": ["python3", "bot.py"]}
            owner = ann if name.startswith("ann") else None
            add_bot_version(s, store_runtime.blobs, name.encode(), manifest, "valid", owner=owner)
    refs = ["ann-a", "ann-b", "ann-c", "bo", "cy", "di"]
    rules = PAGAT.with_(deals_per_game=1)

    def ann_bots_per_table(allow: bool) -> list[int]:
        spec = TournamentSpec(refs, rules, allow_same_owner=allow)
        tid = new_tournament(db, store_runtime, spec).id
        extend_tournament(db, tid, 8)
        with db.session(read_only=True) as s:
            query = select(BotVersion.id).join(Bot).where(Bot.owner_id == ann.id)
            ids = set(s.scalars(query))
        return [len(ids & set(m.seats)) for m in matches(db, tid)]

    assert ann_bots_per_table(False) == [1] * (3 + 8)  # the 3 legal 4-subsets, 8 extra
    together = ann_bots_per_table(True)
    assert len(together) == 15 + 8 and max(together) == 3  # e.g. ann-a, ann-b, ann-c first
