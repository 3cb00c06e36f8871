"""Working an analysis out: the master's verdicts stored once, whichever attempt finishes
(a worker that lost its lease stores nothing and stops), progress written as it goes, an
error of the analysis stored as the reason, Ctrl-C giving it back uncounted, and lost ones
sent again by the recovery."""

from __future__ import annotations

import json
import zlib
from datetime import timedelta

import pytest
from sqlalchemy import select, update

from arena.analysis import Analysis, analyse
from arena.analysis_runs import recover, request, run, work_out
from arena.readmodels.analyses import analysis_detail
from arena.store import Database, MatchAnalysis, Replay, claim_analysis, load_replay
from arena.store.analyses import store_analysis
from arena.store.models import utcnow
from tests.analysis_runs.site import Played
from tests.support import both_databases


def row(db: Database, analysis_id: int) -> MatchAnalysis:
    with db.session(read_only=True) as s:
        return s.get_one(MatchAnalysis, analysis_id)


@both_databases
def test_a_result_is_stored_once_by_the_attempt_that_holds_the_lease(db: Database, played: Played):
    asked = request(db, played.match_id, 1, 64, played.users["bob"])
    with db.session() as s:  # a first worker takes it and is lost: its lease runs out
        lost = claim_analysis(s, asked.id, "lost-worker", lease_s=-1)
    assert lost is not None
    steps: list[tuple[int, int]] = []
    assert run(db, asked.id, "second", on_progress=lambda *step: steps.append(step)) == "done"
    with db.session() as s:
        record = load_replay(s, played.match_id)
        late = Analysis(1, 64, 0, ()).to_dict()
        assert not store_analysis(s, lost, late, {"decisions": 0})  # the lost one, too late
        detail = analysis_detail(s, asked.id)
    expected = analyse(record, 1, 64, 0)
    assert Analysis.from_dict(detail["result"]) == expected
    summary = expected.summary()
    assert detail["status"] == "done" and detail["reason"] is None
    assert detail["summary"]["mean_loss"] == summary["overall"]["mean"]
    assert detail["summary"]["decisions"] == summary["overall"]["count"] > 0
    assert detail["summary"]["labels"] == summary["labels"]
    total = len(expected.verdicts)
    assert steps == [(done, total) for done in range(1, total + 1)]
    assert detail["progress"] == {"done": total, "total": total}
    stored = row(db, asked.id)
    assert (stored.attempts, stored.worker) == (2, "second")
    assert run(db, asked.id, "third") == "skipped"  # done: nothing to do


def test_a_worker_that_loses_its_lease_stops_and_stores_nothing(db: Database, played: Played):
    asked = request(db, played.match_id, 0, 64, played.users["alice"])

    def overtaken(done: int, total: int) -> None:  # another attempt takes it over
        with db.session() as s:
            s.execute(update(MatchAnalysis).values(attempt_token="f" * 32))

    assert run(db, asked.id, "w", on_progress=overtaken) == "late"
    after = row(db, asked.id)
    assert (after.status, after.progress_done, after.decisions) == ("running", 0, None)


def test_an_error_of_the_analysis_fails_it_with_the_reason(db: Database, played: Played):
    with db.session() as s:
        replay = s.scalar(select(Replay).where(Replay.match_id == played.match_id))
        record = json.loads(zlib.decompress(replay.data))
        del record["games"][0]["deals"][0]["decisions"][-1]
        replay.data = zlib.compress(json.dumps(record).encode())
    alice = played.users["alice"]
    asked = request(db, played.match_id, 0, 64, alice)
    assert run(db, asked.id, "w") == "failed"
    failed = row(db, asked.id)
    assert failed.status == "failed"
    assert failed.reason is not None
    assert failed.reason.startswith("the analysis failed: ValueError: game 1 deal 1: ")
    again = request(db, played.match_id, 0, 64, alice)  # asked again: queued again
    assert (again.id, again.status, again.attempts, again.reason) == (asked.id, "queued", 0, None)


def test_ctrl_c_gives_it_back_uncounted_and_work_out_finishes_it(db: Database, played: Played):
    asked = request(db, played.match_id, 0, 64, None)

    def interrupted(done: int, total: int) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run(db, asked.id, "w", on_progress=interrupted)
    back = row(db, asked.id)
    assert (back.status, back.attempts, back.attempt_token) == ("queued", 0, None)
    assert work_out(db, asked.id, "w") == "done"


def test_the_recovery_sends_what_was_lost_and_leaves_what_waits(db: Database, played: Played):
    sent: list[int] = []
    waiting = request(db, played.match_id, 0, 64, None, dispatch=sent.append)
    taken = request(db, played.match_id, 1, 64, None, dispatch=sent.append)
    with db.session() as s:  # sent a while ago; its worker took the job, then was lost
        ago = utcnow() - timedelta(seconds=10)
        s.execute(update(MatchAnalysis).values(queued_at=ago))
        claim_analysis(s, taken.id, "lost", lease_s=-1)
    sent.clear()
    assert recover(db, 60, False, sent.append) == 1
    assert sent == [taken.id]  # at once; the waiting one's job may be in a deep queue
    assert recover(db, 60, True, sent.append) == 0  # sent less than a lease ago (or now)
    assert recover(db, 0, False, sent.append) == 0  # its queue holds jobs: it may be there
    assert recover(db, 0, True, sent.append) == 2  # its queue is empty: its job was lost
    assert sorted(sent[1:]) == [waiting.id, taken.id]
