"""What the match job stores while it plays: a running match's finished deals (and nothing
of the deal being played), and rating snapshots as results arrive (two workers crossing one
step: on SQLite and on Postgres)."""

from __future__ import annotations

import json
import threading

from sqlalchemy import delete, func, select

from arena.store import (
    LiveRecord,
    RatingSnapshot,
    live_record_state,
    load_live_record_json,
    load_replay,
)
from arena.tournaments import standings
from arena.tournaments.run import run_match
from arena.tournaments.standings import finish_tournament
from tests.services.test_executor import house_only, matches, tournament
from tests.support import both_databases
from tests.views.players import PauseAfter, first_player_paused


def live_rows(db) -> int:
    with db.session(read_only=True) as s:
        return s.scalar(select(func.count()).select_from(LiveRecord)) or 0


def test_a_running_match_shows_its_finished_deals_and_nothing_of_the_next(db, store_runtime):
    tid = tournament(db, store_runtime, house_only(db, store_runtime), games=2, deals=3, tables=1)
    match_id = matches(db, tid)[0].id
    pause = PauseAfter(deals=1, decisions=3)  # entrant 0, in the 2nd deal of game 0
    status: list[str] = []
    worker = threading.Thread(
        target=lambda: status.append(run_match(db, store_runtime, match_id, "w"))
    )
    with first_player_paused(pause):
        worker.start()
        try:
            assert pause.paused.wait(60)
            with db.session(read_only=True) as s:
                live = json.loads(load_live_record_json(s, match_id))
                assert live_record_state(s, match_id).deals == 1
        finally:
            pause.release()
            worker.join(120)
    assert status == ["done"]
    assert live_rows(db) == 0  # gone with the result
    with db.session(read_only=True) as s:
        final = load_replay(s, match_id)

    assert live["partial"] is True
    assert [len(game["deals"]) for game in live["games"]] == [1]
    assert live["games"][0]["deals"] == final["games"][0]["deals"][:1]  # hands, tricks, times
    assert live["games"][0]["players"] == final["games"][0]["players"]
    text = json.dumps(live)
    playing = final["games"][0]["deals"][1]  # two tricks of it had been played
    for hand in playing["hands"]:
        assert hand not in text
    assert json.dumps(playing["tricks"][0]["cards"]) not in text
    assert str(playing["seed"]) not in text
    assert str(final["seed"]) not in text  # the match seed would give every hand away
    assert "seed" not in live and all("seed" not in game for game in live["games"])


def test_rating_snapshots_are_saved_every_tenth_of_the_matches(db, store_runtime, monkeypatch):
    tid = tournament(db, store_runtime, house_only(db, store_runtime), tables=20)
    fits = []
    real = standings.rank
    monkeypatch.setattr(
        standings, "rank", lambda s, rows, *model: fits.append(1) or real(s, rows, *model)
    )
    for match in matches(db, tid):
        assert run_match(db, store_runtime, match.id, "w") == "done"
    finish_tournament(db, tid)  # the run's end: the last step already covers every match
    with db.session(read_only=True) as s:
        query = select(RatingSnapshot.payload).where(RatingSnapshot.tournament_id == tid)
        done = [payload["done"] for payload in s.scalars(query.order_by(RatingSnapshot.id))]
    assert done == list(range(2, 21, 2))
    assert len(fits) == 10  # one fit per snapshot, none for the results in between


@both_databases
def test_two_workers_crossing_the_same_step_save_one_snapshot(db, store_runtime, monkeypatch):
    tid = tournament(db, store_runtime, house_only(db, store_runtime), tables=2)
    for match in matches(db, tid):
        assert run_match(db, store_runtime, match.id, "w") == "done"
    with db.session() as s:
        s.execute(delete(RatingSnapshot))
    both_fitted = threading.Barrier(2, timeout=30)
    real = standings.rank

    def rank(s, rows, *model):
        both_fitted.wait()  # each has read the latest snapshot (none) and fitted
        return real(s, rows, *model)

    monkeypatch.setattr(standings, "rank", rank)
    saved: list[bool] = []
    workers = [
        threading.Thread(target=lambda: saved.append(standings.snapshot(db, tid))) for _ in range(2)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    assert sorted(saved) == [False, True]
    with db.session(read_only=True) as s:
        assert s.scalar(select(func.count()).select_from(RatingSnapshot)) == 1
