"""The decision audit on the Celery backend, everything real (Redis, Postgres, an ``arena
worker`` process started with its default queues): a recorded match's hindsight, sent as
its match's job sends it (to the audit queue, at the lowest priority), is judged by the
worker and stored once; sending it again sends nothing."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.orm import undefer

from arena.analysis.hindsight import Hindsight
from arena.store import BlobStore, Database, MatchHindsight
from tests.analysis_runs.site import played_match
from tests.services.test_executor import wait_for
from tests.workers.test_celery import wait_ready


def row(db: Database, match_id: int) -> MatchHindsight:
    with db.session(read_only=True) as s:
        query = s.query(MatchHindsight).options(undefer(MatchHindsight.result))
        return query.filter_by(match_id=match_id).one()


def test_a_finished_match_is_judged_by_a_worker_and_stored_once(
    cluster_db, runtime, redis, workers, monkeypatch, tmp_path: Path
):
    from workers.app import app
    from workers.identity import sending_for
    from workers.tasks import send_hindsights

    monkeypatch.setattr(app.conf, "broker_url", redis.url)
    monkeypatch.setattr(app, "_pool", None)  # pooled connections of an earlier test's Redis
    monkeypatch.setattr(app.amqp, "_producer_pool", None)
    match_id = played_match(cluster_db, BlobStore(tmp_path / "blobs")).match_id
    assert row(cluster_db, match_id).status == "queued"
    with sending_for(cluster_db):
        assert send_hindsights(cluster_db, runtime, match_id) == 1
        assert send_hindsights(cluster_db, runtime, match_id) == 0  # a second job: sent once
    workers.start()
    wait_ready(workers, 1)
    wait_for(
        lambda: row(cluster_db, match_id).status in ("done", "failed"),
        240,
        "the hindsight judged by the worker",
        workers.logs,
    )
    done = row(cluster_db, match_id)
    assert done.status == "done", (done.reason, workers.logs())
    assert done.attempts == 1 and done.worker
    judged = [Hindsight.from_dict(e) for e in done.result["entrants"]]
    assert [h.entrant for h in judged] == [0, 1]
    assert done.cpu_seconds is not None and done.cpu_seconds > 0
    assert "queues arena,arena.recovery,audit" in workers.logs()
