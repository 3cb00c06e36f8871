"""Adaptive extra matches through the Celery backend (real Redis, Postgres, ``arena worker``
processes): a create-time budget is scheduled by the worker that finishes the last match and
sent by it, with or without a follower; ``extend`` after an embedded run is played by the
workers."""

from __future__ import annotations

import time

from arena.game import PAGAT
from arena.runtime import Runtime
from arena.store import Database, Tournament
from arena.tournaments.create import new_tournament
from arena.tournaments.executor import run_tournament
from arena.tournaments.extend import ADAPTIVE_ROUND, extend_tournament
from arena.tournaments.spec import TournamentSpec
from tests.services.test_executor import (
    HOUSE,
    assert_counted_once,
    matches,
    tournament_status,
)
from tests.workers.test_celery import finished, follow_cli, wait_ready

BOTS = [*HOUSE, "house:random#2", "house:heuristic#3"]


def create(db: Database, runtime: Runtime, **options) -> int:
    rules = PAGAT.with_(deals_per_game=1)
    options = {"games_per_match": 2, "seed": 4, "tables": 5, **options}
    return new_tournament(db, runtime, TournamentSpec(BOTS, rules, **options)).id


def test_a_budget_is_scheduled_and_sent_by_the_workers(
    cluster_db, runtime, redis, workers, tmp_path
):
    budget = ADAPTIVE_ROUND + 1
    tid = create(cluster_db, runtime, adaptive_matches=budget)
    workers.start()
    wait_ready(workers, 1)
    detached = follow_cli(cluster_db, redis, tmp_path, tid, "--detach")
    assert "5 matches sent" in finished(detached, workers)

    deadline = time.monotonic() + 240  # no follower: the workers carry the rounds
    while tournament_status(cluster_db, tid) != "done" and time.monotonic() < deadline:
        time.sleep(0.5)
    assert tournament_status(cluster_db, tid) == "done", workers.logs()
    played = matches(cluster_db, tid)
    assert len(played) == 5 + budget and all(m.status == "done" for m in played)
    assert all(m.queued_at is not None for m in played)  # each one was sent
    with cluster_db.session(read_only=True) as s:
        assert s.get(Tournament, tid).adaptive_matches == 0
    assert_counted_once(cluster_db, tid, games=2)


def test_extend_after_an_embedded_run_is_played_by_the_workers(
    cluster_db, runtime, redis, workers, tmp_path
):
    tid = create(cluster_db, runtime)
    run_tournament(cluster_db, runtime, tid, workers=1)
    extend_tournament(cluster_db, tid, 3)
    workers.start()
    wait_ready(workers, 1)
    out = finished(follow_cli(cluster_db, redis, tmp_path, tid), workers)
    assert "3 matches sent" in out and f"tournament {tid}: 8 done" in out
    assert tournament_status(cluster_db, tid) == "done"
    assert_counted_once(cluster_db, tid, games=2)
