"""Match analyses on the Celery backend, everything real (Redis, Postgres, ``arena worker``
and ``arena beat`` processes): the dashboard sends the analysis it is asked for to the
workers; a worker SIGKILLed in the middle of it loses only its attempt: once the lease runs
out, the beat's recovery sends it again (the broker, whose visibility timeout is an hour
here, would not), another worker works it out, and it is stored once."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from sqlalchemy.orm import undefer

from arena.analysis import Analysis
from arena.analysis_runs.run import summary_columns
from arena.store import BlobStore, Database, MatchAnalysis, issue_token
from dashboard import create_app
from tests.analysis_runs.site import played_match
from tests.services.test_executor import wait_for
from tests.workers.test_celery import wait_ready
from tests.workers.test_celery_recovery import ONE_HOUR, start_beat, stop, worker_logs

SAMPLES = 4096  # the most: two deals take a worker seconds, time to kill it mid-way


def row(db: Database, analysis_id: int) -> MatchAnalysis:
    with db.session(read_only=True) as s:
        return s.get_one(MatchAnalysis, analysis_id, options=[undefer(MatchAnalysis.result)])


def test_an_analysis_survives_a_killed_worker_and_is_stored_once(
    cluster_db, runtime, redis, workers, monkeypatch, tmp_path: Path
):
    from workers.app import app

    monkeypatch.setattr(app.conf, "broker_url", redis.url)
    monkeypatch.setattr(app, "_pool", None)  # pooled connections of an earlier test's Redis
    monkeypatch.setattr(app.amqp, "_producer_pool", None)
    broker = dataclasses.replace(runtime.settings, broker_configured=True)
    web = create_app(cluster_db, type(runtime)(broker, policy=runtime.policy), TESTING=True)
    played = played_match(cluster_db, BlobStore(tmp_path / "blobs"), deals=2)
    with cluster_db.session() as s:
        token = issue_token(s, played.users["alice"])
    env = {"ARENA_VISIBILITY_TIMEOUT": ONE_HOUR}
    workers.env = env
    first = workers.start()
    wait_ready(workers, 1)

    client = web.test_client()
    url = f"/api/v1/matches/{played.match_id}/analyses"
    reply = client.post(
        url, json={"entrant": 0, "samples": SAMPLES}, headers={"Authorization": f"Bearer {token}"}
    )
    assert reply.status_code == 202, reply.get_json()
    analysis_id = reply.get_json()["id"]

    def under_way() -> bool:
        now = row(cluster_db, analysis_id)
        assert now.status in ("queued", "running"), (now.status, now.reason)
        return now.status == "running" and now.progress_done >= 1

    wait_for(under_way, 120, "a worker well into the analysis", workers.logs)
    killed = row(cluster_db, analysis_id).worker
    workers.kill(first)

    workers.start()
    beat = start_beat(cluster_db, redis, tmp_path, env)
    try:
        wait_for(
            lambda: row(cluster_db, analysis_id).status in ("done", "failed"),
            300,
            "the analysis finished by the second worker",
            workers.logs,
        )
    finally:
        stop(beat)
    done = row(cluster_db, analysis_id)
    assert done.status == "done", (done.reason, workers.logs())
    assert done.attempts == 2 and done.worker != killed
    analysis = Analysis.from_dict(done.result)
    assert (analysis.entrant, analysis.samples) == (0, SAMPLES)
    assert {v.deal for v in analysis.verdicts} == {0, 1}
    stored = {k: getattr(done, k) for k in summary_columns(analysis)}
    assert stored == summary_columns(analysis)
    assert done.progress_done == done.progress_total == len(analysis.verdicts)
    # the recovery's doing (its job's return value), not the broker's
    assert re.search(r"[1-9]\d* analyses sent again'", worker_logs(tmp_path))
