"""The decision audit on the Celery backend, everything real (Redis, Postgres, ``arena
worker`` processes): a recorded match's hindsight, sent to the audit queue as its match's
job sends it past the worker's budget, is judged by a worker on its default queues and
stored once, and sending it again sends nothing; within the budget, the worker that played
the match judges it at once, though it takes no audit jobs."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import undefer

from arena.analysis.hindsight import Hindsight
from arena.store import BlobStore, Database, Match, MatchHindsight
from tests.analysis_runs.site import played_match
from tests.services.test_executor import wait_for
from tests.workers.test_celery import HOUSE, LOWCARD, bots, create, finished, follow_cli, wait_ready


def row(db: Database, match_id: int) -> MatchHindsight:
    with db.session(read_only=True) as s:
        query = s.query(MatchHindsight).options(undefer(MatchHindsight.result))
        return query.filter_by(match_id=match_id).one()


def test_a_finished_match_is_judged_by_a_worker_and_stored_once(
    cluster_db, runtime, redis, workers, monkeypatch, tmp_path: Path
):
    from workers.app import app
    from workers.identity import sending_for
    from workers.tasks import judge_or_send

    monkeypatch.setattr(app.conf, "broker_url", redis.url)
    monkeypatch.setattr(app, "_pool", None)  # pooled connections of an earlier test's Redis
    monkeypatch.setattr(app.amqp, "_producer_pool", None)
    match_id = played_match(cluster_db, BlobStore(tmp_path / "blobs")).match_id
    assert row(cluster_db, match_id).status == "queued"
    queued = replace(runtime, settings=replace(runtime.settings, audit_share=0.0))
    with sending_for(cluster_db):
        assert judge_or_send(cluster_db, queued, match_id, 10.0) == ["sent"]
        assert judge_or_send(cluster_db, queued, match_id, 10.0) == []  # a second job: none
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
    assert {"arena", "arena.recovery", "audit", "arena.build"} <= queues_taken(workers.logs())


def test_a_worker_judges_the_matches_it_played_within_its_budget(
    cluster_db, runtime, redis, workers, tmp_path: Path
):
    tid = create(cluster_db, runtime, [*bots(cluster_db, runtime, tmp_path, LOWCARD, "lo"), *HOUSE])
    workers.start(1, "--no-audit")  # it never takes a job of the audit queue
    wait_ready(workers, 1)
    finished(follow_cli(cluster_db, redis, tmp_path, tid), workers)
    with cluster_db.session(read_only=True) as s:
        query = select(Match.id, Match.worker).where(Match.tournament_id == tid)
        played = {match_id: worker for match_id, worker in s.execute(query)}
    # the first match a worker plays is judged whatever it cost (nothing judged yet)

    def judged() -> list[MatchHindsight]:
        return [h for h in (row(cluster_db, m) for m in played) if h.status == "done"]

    wait_for(judged, 240, "a hindsight judged by the worker", workers.logs)
    for done in judged():
        assert done.worker == played[done.match_id]  # by the worker that played it
        assert len(done.result["entrants"]) == 1  # the one bot that is not a house bot
    assert not [m for m in played if row(cluster_db, m).status == "failed"], workers.logs()
    taken = queues_taken(workers.logs())
    assert {"arena", "arena.recovery"} <= taken and "audit" not in taken


def queues_taken(logs: str) -> set[str]:
    """The queues a worker says it takes (its first line; build queues by its toolchains)."""
    found = re.search(r"\), queues (\S+)", logs)
    assert found, logs
    return set(found.group(1).split(","))
