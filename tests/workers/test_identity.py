"""A worker on another database refuses the jobs, and they wait for the right worker: every
job carries the identity of the database it was sent for (``workers.identity``). Through the
real broker, ``arena worker`` processes and two Postgres schemas, each a database of its own
identity."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.store import Database, upgrade
from tests.cluster import Redis, Workers, cluster_env
from tests.services.test_executor import (
    arena_command,
    assert_counted_once,
    house_only,
    matches,
    tournament,
    tournament_status,
    wait_for,
)
from tests.support import pg_schema
from tests.workers.test_celery import wait_ready
from workers.identity import HEADER, _stamp_job, identity_of, sending_for, stamping

TIMEOUT_S = 300  # a loaded 2-core machine: generous, never a measure


@pytest.fixture
def other_db() -> Iterator[Database]:
    """A second migrated schema: another database, with an identity of its own."""
    with pg_schema("arena_elsewhere") as url:
        upgrade(url)
        db = Database(url)
        yield db
        db.dispose()


def test_jobs_sent_for_a_database_are_stamped_with_its_identity(cluster_db, other_db):
    ours, theirs = identity_of(cluster_db), identity_of(other_db)
    assert len(ours) == 32 and ours != theirs and identity_of(cluster_db) == ours
    headers: dict[str, object] = {}
    with sending_for(cluster_db):
        _stamp_job(headers=headers)
        with stamping(theirs):  # what a job sends carries what it was checked against
            inner: dict[str, object] = {}
            _stamp_job(headers=inner)
    assert headers == {HEADER: ours} and inner == {HEADER: theirs}
    resent = {HEADER: theirs}
    with sending_for(cluster_db):
        _stamp_job(headers=resent)  # a job sent again keeps the stamp it had
    assert resent == {HEADER: theirs}
    bare: dict[str, object] = {}
    _stamp_job(headers=bare)  # outside any sender: unstamped
    assert bare == {}


def test_a_worker_on_another_database_refuses_the_jobs_and_the_right_one_plays_them(
    cluster_db, other_db, runtime, redis: Redis, workers: Workers, tmp_path: Path
):
    tid = tournament(cluster_db, runtime, house_only(cluster_db, runtime))
    total = len(matches(cluster_db, tid))
    astray = Workers(other_db, redis, tmp_path / "astray")
    (tmp_path / "astray").mkdir()
    try:
        astray.start()
        wait_ready(astray, 1)
        send = [*arena_command(), "tournament", "run", str(tid), "--backend", "celery", "--detach"]
        env = cluster_env(cluster_db, redis, tmp_path / "sender")
        sent = subprocess.run(send, env=env, cwd=tmp_path, capture_output=True, text=True)
        assert sent.returncode == 0, sent.stdout + sent.stderr
        assert f"{total} matches sent" in sent.stdout

        wait_for(lambda: "REFUSED" in astray.logs(), TIMEOUT_S, "a refusal", astray.logs)
        refusal = next(line for line in astray.logs().splitlines() if "REFUSED" in line)
        assert identity_of(cluster_db) in refusal and identity_of(other_db) in refusal
        assert "ARENA_DATABASE_URL" in refusal
        # nothing was played, claimed or failed by the worker on the other database
        assert {m.status for m in matches(cluster_db, tid)} == {"pending"}
        assert all(m.attempts == 0 for m in matches(cluster_db, tid))

        workers.start()  # the right worker: it gets every job, the refused ones too
        wait_ready(workers, 1)
        wait_for(
            lambda: tournament_status(cluster_db, tid) == "done",
            TIMEOUT_S,
            "the tournament done by the right worker",
            lambda: workers.logs() + astray.logs(),
        )
    finally:
        astray.stop_all()
    played = matches(cluster_db, tid)
    assert [m.status for m in played] == ["done"] * total
    assert_counted_once(cluster_db, tid, games=1)
    assert "Traceback" not in astray.logs()


def test_a_refused_job_goes_back_until_a_cap_then_is_dropped_unrun(monkeypatch, caplog) -> None:
    """The task class alone, run eagerly (a retry runs at once): stamped for this worker's
    database, or unstamped, a job runs; stamped for another, it is sent back MAX_REFUSALS
    times, each logged, then dropped without running; a database made anew since the worker
    read its identity is read again before refusing."""
    from celery import Celery

    import workers.identity as identity

    app = Celery("probe", task_cls=identity.DatabaseBoundTask, set_as_current=False)
    app.conf.task_always_eager = True
    ran: list[int] = []

    @app.task(bind=True, max_retries=None)
    def probe(self, x: int) -> str:
        ran.append(x)
        return "ran"

    monkeypatch.setattr(identity, "REFUSED_WAIT_S", 0.0)  # the refusing worker's pause
    known = {"identity": "old"}
    monkeypatch.setattr(
        identity, "own_identity", lambda fresh=False: "new" if fresh else known["identity"]
    )
    monkeypatch.setattr(identity, "_where", lambda: "postgresql://elsewhere/arena")
    assert probe.apply_async((1,), headers={HEADER: "old"}).get() == "ran"
    assert probe.apply_async((2,)).get() == "ran"  # from an earlier version: unstamped
    assert probe.apply_async((3,), headers={HEADER: "new"}).get() == "ran"  # read again
    with caplog.at_level("ERROR", logger="workers.identity"):
        dropped = probe.apply_async((4,), headers={HEADER: "theirs"}).get()
    assert dropped.startswith("dropped") and ran == [1, 2, 3]
    refusals = [r.getMessage() for r in caplog.records if r.getMessage().startswith("REFUSED")]
    assert len(refusals) == identity.MAX_REFUSALS
    assert "theirs" in refusals[0] and "postgresql://elsewhere/arena" in refusals[0]
    assert any(r.getMessage().startswith("DROPPED") for r in caplog.records)
