"""The cluster's recovery, without Celery (``arena.tournaments.dispatch.recover``; the beat's
job and the follower call it): what it sends again, what it leaves alone, what it finishes,
and that several at once send each lost match once. And a database outage in the middle of
a match: its attempt is not counted, and its result waits for the database."""

from __future__ import annotations

import os
import socket
import subprocess
import threading
from datetime import timedelta

import pytest
from sqlalchemy import update
from sqlalchemy.exc import OperationalError

from arena.store import Match, Tournament, claim_match, release_match
from arena.store.db import database_down
from arena.store.models import utcnow
from arena.tournaments import run as run_module
from arena.tournaments.dispatch import (
    LOST_PRIORITY,
    MATCH_PRIORITY,
    Job,
    matches_to_send,
    recover,
    send_freed,
    sent_tournaments,
)
from arena.tournaments.executor import release_dead_holders
from arena.tournaments.run import run_match
from tests.services.test_executor import house_only, matches, tournament, tournament_status

LEASE_S = 30.0


class Sent:
    """The ``send`` of ``recover``: records (match id, queue) of each job."""

    def __init__(self) -> None:
        self.jobs: list[tuple[int, str]] = []
        self.priorities: dict[int, int] = {}
        self.lock = threading.Lock()

    def __call__(self, job: Job) -> None:
        with self.lock:
            self.jobs.append((job.match_id, job.queue))
            self.priorities[job.match_id] = job.priority


def idle(_queue: str) -> bool:
    return True


def busy(_queue: str) -> bool:
    return False


def sent_tournament(db, runtime, tables: int = 4) -> tuple[int, list[int]]:
    """A tournament whose matches were all sent to the workers (long enough ago to count as
    lost, were they claimable), running."""
    tid = tournament(db, runtime, house_only(db, runtime), tables=tables)
    ids = [job.match_id for job in matches_to_send(db, tid)]
    with db.session() as s:
        s.execute(update(Tournament).where(Tournament.id == tid).values(status="running"))
    age(db, ids, 2 * LEASE_S)
    return tid, ids


def age(db, ids: list[int], seconds: float) -> None:
    with db.session() as s:
        s.execute(
            update(Match)
            .where(Match.id.in_(ids))
            .values(queued_at=utcnow() - timedelta(seconds=seconds))
        )


def lose_worker(db, match_id: int, expired: bool = True) -> None:
    """The match is running under a lease that ran out (its worker was lost), or not yet."""
    expiry = utcnow() + timedelta(seconds=-1 if expired else LEASE_S)
    with db.session() as s:
        s.execute(
            update(Match)
            .where(Match.id == match_id)
            .values(
                status="running",
                attempts=1,
                attempt_token="t",
                worker="w:1",
                lease_expires_at=expiry,
            )
        )


def test_lost_matches_are_sent_again_once_and_live_ones_are_left(db, store_runtime):
    tid, (lost, pending, leased, fresh) = sent_tournament(db, store_runtime)
    lose_worker(db, lost)
    lose_worker(db, leased, expired=False)
    age(db, [fresh], LEASE_S / 2)  # sent recently: its job may still be on its way

    sent = Sent()
    assert recover(db, LEASE_S, idle, sent) == {tid: 2}
    assert sorted(sent.jobs) == sorted([(lost, "arena"), (pending, "arena")])
    assert recover(db, LEASE_S, idle, sent) == {}  # marked sent again: not before a lease
    age(db, [lost, pending], 2 * LEASE_S)
    assert recover(db, LEASE_S, idle, sent) == {tid: 2}


def test_a_deep_queue_holds_back_jobs_that_may_wait_in_it_not_lost_or_unsent_ones(
    db, store_runtime
):
    """A pending match sent a lease ago may still wait in a deep queue: left alone. One its
    worker took and lost, and one never sent, go at once (a standing ladder's queue never
    empties); the lost one ahead of the queue, for it has waited a lease already."""
    tid, (lost, never, *waiting) = sent_tournament(db, store_runtime)
    lose_worker(db, lost)
    with db.session() as s:  # e.g. a round of adaptive matches scheduled, not yet sent
        s.execute(update(Match).where(Match.id == never).values(queued_at=None))
    sent = Sent()
    assert recover(db, LEASE_S, busy, sent) == {tid: 2}
    assert sorted(sent.jobs) == sorted([(lost, "arena"), (never, "arena")])
    assert not {m for m, _ in sent.jobs} & set(waiting)
    assert sent.priorities == {lost: LOST_PRIORITY, never: MATCH_PRIORITY}
    with db.session() as s:  # a lease later, its new job still waiting: left alone now
        s.execute(
            update(Match)
            .where(Match.id == lost)
            .values(
                queued_at=utcnow() - timedelta(seconds=2 * LEASE_S),
                lease_expires_at=utcnow() - timedelta(seconds=3 * LEASE_S),
            )
        )
    assert recover(db, LEASE_S, busy, sent) == {}


def test_an_embedded_run_and_a_stopped_run_are_not_touched(db, store_runtime):
    embedded = tournament(db, store_runtime, house_only(db, store_runtime), tables=2)
    with db.session() as s:  # running here, never sent to workers
        s.execute(update(Tournament).where(Tournament.id == embedded).values(status="running"))
    stopped, _ = sent_tournament(db, store_runtime)
    with db.session() as s:
        s.execute(update(Tournament).where(Tournament.id == stopped).values(status="draft"))
    assert sent_tournaments(db) == []
    sent = Sent()
    assert recover(db, LEASE_S, idle, sent) == {} and sent.jobs == []


def test_a_tournament_whose_matches_are_all_played_is_finished(db, store_runtime):
    tid, ids = sent_tournament(db, store_runtime, tables=2)
    for match_id in ids:  # played by workers; the last one's worker was lost before finishing
        assert run_match(db, store_runtime, match_id, "w:1") == "done"
    assert tournament_status(db, tid) == "running"
    sent = Sent()
    assert recover(db, LEASE_S, idle, sent) == {} and sent.jobs == []
    assert tournament_status(db, tid) == "done"


def test_recoveries_at_once_send_each_lost_match_once(db, store_runtime):
    _, ids = sent_tournament(db, store_runtime, tables=6)
    for match_id in ids[:3]:
        lose_worker(db, match_id)
    sent, start = Sent(), threading.Barrier(4)

    def beat() -> None:
        start.wait()
        recover(db, LEASE_S, idle, sent)

    threads = [threading.Thread(target=beat) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(m for m, _ in sent.jobs) == sorted(ids)  # 3 lost, 3 pending: each once


def test_an_attempt_cut_short_by_the_database_is_not_counted(db, store_runtime):
    tid, (match_id, *_) = sent_tournament(db, store_runtime, tables=1)
    with db.session() as s:
        lease = claim_match(s, match_id, "w:1", LEASE_S, max_attempts=1)
    with db.session() as s:  # the last attempt allowed: a platform error would fail it
        assert release_match(s, lease, "database unreachable", 1, outage=True) == "pending"
    (match,) = [m for m in matches(db, tid) if m.id == match_id]
    assert (match.status, match.attempts) == ("pending", 0)
    assert match.queued_at is not None  # its job is retried: not to be sent as new


def _down() -> OperationalError:
    return OperationalError("SELECT 1", {}, Exception("connection refused"))


def test_a_result_waits_for_the_database(db, store_runtime, monkeypatch):
    """The database refuses the first two writes of the result: the match is recorded once
    it answers, on its first attempt."""
    assert database_down(_down())
    tid, (match_id, *_) = sent_tournament(db, store_runtime, tables=1)
    real, failures = run_module.record_result, []

    def flaky(*args, **kwargs):
        if len(failures) < 2:
            failures.append(1)
            raise _down()
        return real(*args, **kwargs)

    monkeypatch.setattr(run_module, "record_result", flaky)
    monkeypatch.setattr("arena.store.db.BACKOFF_S", (0.01, 0.02))
    assert run_match(db, store_runtime, match_id, "w:1") == "done"
    (match,) = [m for m in matches(db, tid) if m.id == match_id]
    assert (match.status, match.attempts, len(failures)) == ("done", 1, 2)


def test_a_match_whose_start_meets_the_outage_is_given_back_uncounted(
    db, store_runtime, monkeypatch
):
    tid, (match_id, *_) = sent_tournament(db, store_runtime, tables=1)

    def refused(*_args, **_kwargs):
        raise _down()

    monkeypatch.setattr(run_module, "match_spec", refused)
    assert run_match(db, store_runtime, match_id, "w:1") == "retry"
    (match,) = [m for m in matches(db, tid) if m.id == match_id]
    assert (match.status, match.attempts) == ("pending", 0)
    assert match.reason.startswith("database unreachable: connection refused")


@pytest.mark.parametrize("answers", [True, False])
def test_patiently_gives_up_after_its_time(db, monkeypatch, answers):
    monkeypatch.setattr("arena.store.db.BACKOFF_S", (0.01, 0.02))
    calls = []

    def work() -> str:
        calls.append(1)
        if answers and len(calls) > 3:
            return "ok"
        raise _down()

    if answers:
        assert db.patiently(work, 5.0) == "ok"
    else:
        with pytest.raises(OperationalError):
            db.patiently(work, 0.1)
    assert len(calls) > 1


def test_a_restarted_worker_frees_what_its_dead_processes_on_this_host_held(db, store_runtime):
    """Leases of processes of this host that are gone end now, so a worker restarted after a
    kill sends their matches again without waiting for the leases; a live process's lease,
    and another host's, stay."""
    _, (dead, live, elsewhere, *_) = sent_tournament(db, store_runtime)
    gone = subprocess.Popen(["true"])
    gone.wait()  # reaped: its pid names no process now
    host = socket.gethostname()
    holders = {dead: f"{host}:{gone.pid}", live: f"{host}:{os.getpid()}", elsewhere: "far:1"}
    with db.session() as s:
        for match_id, worker in holders.items():
            assert claim_match(s, match_id, worker, lease_s=600) is not None
    with db.session() as s:  # its job was sent just now: the recovery would wait a lease
        s.execute(update(Match).where(Match.id == dead).values(queued_at=utcnow()))
    assert release_dead_holders(db) == [dead]
    sent = Sent()
    assert send_freed(db, [dead], sent) == 1  # at once all the same, ahead of the queue
    assert sent.jobs == [(dead, "arena")] and sent.priorities[dead] == LOST_PRIORITY
    with db.session() as s:
        assert claim_match(s, dead, f"{host}:{os.getpid()}") is not None
        assert claim_match(s, live, "another:2") is None
