"""The validation pool's fairness (arena/submissions/fair.py): one job per user at a time,
users in turn, whatever order the jobs came in. Jobs block on events, so every assertion
is about order, never about time."""

from __future__ import annotations

import threading

import pytest

from arena.submissions.fair import FairPool

WAIT = 30  # seconds a test may wait for a job that must come; never reached when it works


def test_a_users_second_job_waits_for_the_first_while_others_run() -> None:
    pool = FairPool(2, "test-fair")
    first_done, started = threading.Event(), []
    pool.submit("alice", lambda: (started.append("a1"), first_done.wait(WAIT)))
    second = pool.submit("alice", started.append, "a2")
    bob = pool.submit("bob", started.append, "b1")
    bob.result(WAIT)  # the other thread served bob while alice's first job still ran
    assert started == ["a1", "b1"] and not second.done()
    first_done.set()
    second.result(WAIT)
    assert started == ["a1", "b1", "a2"]


def test_users_take_turns_however_the_jobs_were_queued() -> None:
    pool = FairPool(1, "test-fair")
    busy, release, order = threading.Event(), threading.Event(), []
    pool.submit("busy", lambda: (busy.set(), release.wait(WAIT)))  # holds the only thread
    assert busy.wait(WAIT)
    futures = [
        pool.submit(user, order.append, f"{user}{i}")
        for user, i in [
            ("alice", 1),
            ("alice", 2),
            ("alice", 3),
            ("bob", 1),
            ("carol", 1),
            ("bob", 2),
        ]
    ]
    assert pool.waiting() == {"alice": 3, "bob": 2, "carol": 1}
    release.set()
    for future in futures:
        future.result(WAIT)
    assert order == ["alice1", "bob1", "carol1", "alice2", "bob2", "alice3"]
    assert pool.waiting() == {}


def test_a_failing_job_reaches_its_future_and_frees_its_user() -> None:
    pool = FairPool(1, "test-fair")

    def boom() -> None:
        raise RuntimeError("the validation blew up")

    with pytest.raises(RuntimeError, match="blew up"):
        pool.submit("alice", boom).result(WAIT)
    assert pool.submit("alice", lambda: "next").result(WAIT) == "next"
