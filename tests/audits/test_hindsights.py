"""The decision audit's plumbing: a finished match queues its judging once (not when only
house bots sat), a judging is stored once by the attempt that holds the lease (a second
claimer is skipped, a lost lease stores nothing), an error is stored as the reason, Ctrl-C
gives it back uncounted, and the recovery sends what was never sent or lost."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import select, update
from sqlalchemy.orm import undefer

from arena import audits
from arena.analysis.hindsight import Hindsight
from arena.game import PAGAT
from arena.house.names import house_player
from arena.referee import play_match
from arena.store import (
    BlobStore,
    Database,
    Match,
    MatchHindsight,
    add_bot_version,
    claim_match,
    create_tournament,
    record_result,
)
from arena.store.hindsights import claim_hindsight, coverage, store_hindsight, to_send
from arena.store.models import utcnow
from arena.tournaments.run import match_spec
from arena.tournaments.spec import TournamentSpec
from tests.analysis_runs.site import Played
from tests.audits.site import fake_judging
from tests.support import both_databases


def rows(db: Database) -> list[MatchHindsight]:
    with db.session(read_only=True) as s:
        query = select(MatchHindsight).options(undefer(MatchHindsight.result))
        return list(s.scalars(query.order_by(MatchHindsight.id)))


def the_row(db: Database) -> MatchHindsight:
    [row] = rows(db)
    return row


@both_databases
def test_a_finished_match_queues_its_judging_once(db: Database, played: Played, tmp_path: Path):
    row = the_row(db)
    assert (row.match_id, row.status, row.attempts, row.queued_at) == (
        played.match_id,
        "queued",
        0,
        None,
    )
    spec, _ = match_spec(db, played.pending_id)
    kinds = ("heuristic", "random", "heuristic", "random")
    result = play_match(spec, [house_player(kind, i) for i, kind in enumerate(kinds)])
    with db.session() as s:  # a first attempt, lost: a second one records the match
        lease = claim_match(s, played.pending_id, "first", lease_s=-1)
    with db.session() as s:
        second = claim_match(s, played.pending_id, "second")
        assert second is not None and record_result(s, second, result, 0.1)
    with db.session() as s:  # the first one, late: counted, nothing queued
        assert lease is not None and not record_result(s, lease, result, 0.1)
    assert [r.match_id for r in rows(db)] == [played.match_id, played.pending_id]
    with db.session(read_only=True) as s:
        assert coverage(s, None).waiting == 2


def test_a_match_of_house_bots_alone_is_not_judged(db: Database, tmp_path: Path):
    blobs = BlobStore(tmp_path / "blobs")
    with db.session() as s:
        house = [
            add_bot_version(s, blobs, kind.encode(), _house(kind), "valid")
            for kind in ("random", "heuristic", "master", "mcts")
        ]
        spec = TournamentSpec(name="house cup", rules=PAGAT.with_(deals_per_game=1), seed=3)
        columns = replace(spec, games_per_match=1).columns()
        t = create_tournament(s, columns, house, [(0, (0, 1, 2, 3), 5)])
        match_id = s.scalar(select(Match.id).where(Match.tournament_id == t.id))
    spec, _ = match_spec(db, match_id)
    result = play_match(spec, [house_player("random", i) for i in range(4)])
    with db.session() as s:
        assert record_result(s, claim_match(s, match_id, "w"), result, 0.1)
    assert rows(db) == []


def _house(kind: str) -> dict:
    return {"name": f"house-{kind}", "version": "1", "house": kind}


@both_databases
def test_a_judging_is_stored_once_by_the_attempt_that_holds_the_lease(db: Database, played: Played):
    hindsight_id = the_row(db).id
    with db.session() as s:  # a first worker takes it and is lost: its lease runs out
        lost = claim_hindsight(s, hindsight_id, "lost-worker", lease_s=-1)
    assert lost is not None
    assert audits.run(db, hindsight_id, "second") == "done"
    with db.session() as s:
        assert not store_hindsight(s, lost, [], 0.0)  # the lost one, too late
    done = the_row(db)
    assert (done.status, done.attempts, done.worker, done.reason) == ("done", 2, "second", None)
    judged = [Hindsight.from_dict(e) for e in done.result["entrants"]]
    assert [h.entrant for h in judged] == [0, 1]  # the house bots (2, 3) are not judged
    assert all(h.judged > 0 for h in judged)
    assert done.telling == sum(len(h.telling) for h in judged)
    assert done.cpu_seconds is not None and done.cpu_seconds > 0
    seen = {t.seen for h in judged for t in h.telling}
    assert seen <= {None, 0, 1, 2, 3}
    assert audits.run(db, hindsight_id, "third") == "skipped"  # done: nothing to do


@both_databases
def test_a_second_claimer_is_skipped(db: Database, played: Played):
    hindsight_id = the_row(db).id
    with db.session() as s:
        assert claim_hindsight(s, hindsight_id, "holder") is not None
    assert audits.run(db, hindsight_id, "other") == "skipped"
    assert (the_row(db).status, the_row(db).worker) == ("running", "holder")


def test_a_worker_that_loses_its_lease_stops_and_stores_nothing(
    db: Database, played: Played, monkeypatch
):
    def overtaken(progress):
        with db.session() as s:  # another attempt takes it over
            s.execute(update(MatchHindsight).values(attempt_token="f" * 32))
        progress(1, 2)
        raise AssertionError("not stopped")

    fake_judging(monkeypatch, overtaken)
    assert audits.run(db, the_row(db).id, "w") == "late"
    after = the_row(db)
    assert (after.status, after.result, after.cpu_seconds) == ("running", None, None)


def test_an_error_fails_it_with_the_reason_and_ctrl_c_gives_it_back(
    db: Database, played: Played, monkeypatch
):
    def interrupted(progress):
        raise KeyboardInterrupt

    fake_judging(monkeypatch, interrupted)
    hindsight_id = the_row(db).id
    with pytest.raises(KeyboardInterrupt):
        audits.run(db, hindsight_id, "w")
    back = the_row(db)
    assert (back.status, back.attempts, back.attempt_token) == ("queued", 0, None)

    def broken(progress):
        raise ValueError("no such card")

    fake_judging(monkeypatch, broken)
    assert audits.run(db, hindsight_id, "w") == "failed"
    failed = the_row(db)
    assert failed.status == "failed" and "ValueError: no such card" in failed.reason


def test_work_out_judges_the_scope_here(db: Database, played: Played, monkeypatch):
    fake_judging(monkeypatch, lambda progress: [Hindsight(0, 3, ())])
    steps: list[tuple[int, int]] = []
    with db.session(read_only=True) as s:
        tournament_id = s.get_one(Match, played.match_id).tournament_id
    ended = audits.work_out(db, tournament_id + 1, "w", progress=lambda *a: steps.append(a))
    assert not ended and steps == [(0, 0)]  # another tournament's scope: nothing
    ended = audits.work_out(db, tournament_id, "w", progress=lambda *a: steps.append(a))
    assert ended == {"done": 1} and steps[-2:] == [(0, 1), (1, 1)]
    assert the_row(db).result == {"entrants": [Hindsight(0, 3, ()).to_dict()]}


@both_databases
def test_the_recovery_sends_what_was_lost_and_leaves_what_waits(db: Database, played: Played):
    hindsight_id = the_row(db).id
    sent: list[int] = []
    assert audits.recover(db, 30.0, False, sent.append) == 1  # recorded, never sent
    assert audits.recover(db, 30.0, True, sent.append) == 0  # sent just now: it waits
    assert audits.unsent(db, 30.0, played.match_id) == []  # its match's job: sent already
    with db.session() as s:  # a lease ago, and nothing waits in the queue: lost
        s.execute(update(MatchHindsight).values(queued_at=utcnow() - timedelta(seconds=60)))
    assert audits.recover(db, 30.0, False, sent.append) == 0  # the queue is deep: wait
    assert audits.recover(db, 30.0, True, sent.append) == 1
    with db.session() as s:  # taken since sent, and that worker lost: at once
        s.execute(update(MatchHindsight).values(queued_at=utcnow() - timedelta(seconds=10)))
        assert claim_hindsight(s, hindsight_id, "lost", lease_s=-1) is not None
    assert audits.recover(db, 30.0, False, sent.append) == 1
    with db.session() as s:
        assert to_send(s, 30.0, True) == []
    assert sent == [hindsight_id] * 3
