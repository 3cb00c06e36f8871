"""A tournament with a Node bot and no worker on ``arena.node``: its jobs wait unserved, and
the follower, ``arena tournament list`` and the dashboard say so (with what to start), while
a queue some worker takes is not flagged. Real Redis, Postgres and ``arena worker``."""

from __future__ import annotations

import subprocess
import time
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import update

from arena.store import Database, Match, add_bot_version
from arena.store.models import utcnow
from arena.tournaments.dispatch import queue_for
from tests.cluster import LEASE_S, Redis, Workers, cluster_env
from tests.dashboard.users import post_form
from tests.services.test_executor import HOUSE, arena_command, matches, tournament, wait_for
from tests.workers.test_celery import wait_ready
from tests.workers.test_dashboard_runs import _organiser

NODE_MANIFEST = {"name": "nodey", "version": "1.0", "command": ["node", "bot.js"]}
ADVICE = "in queue arena.node and no worker takes it: start `arena worker --queues arena.node`"
TIMEOUT_S = 300  # a loaded 2-core machine: generous, never a measure


@pytest.fixture
def node_tournament(cluster_db: Database, runtime) -> int:
    """Four entrants at three tables, one a Node bot: every table has it, so every job goes
    to arena.node (its archive is never run: no worker here takes that queue)."""
    manifest = {**NODE_MANIFEST, "runtime": "node20"}
    assert queue_for([manifest]) == "arena.node"
    with cluster_db.session() as s:
        add_bot_version(s, runtime.blobs, b"never run", manifest, "valid")
    return tournament(cluster_db, runtime, ["nodey", *HOUSE], tables=3)


@pytest.fixture
def broker(redis: Redis, monkeypatch: pytest.MonkeyPatch) -> Redis:
    """This process's Celery app on the test's Redis (pools of an earlier test dropped)."""
    from workers.app import app

    monkeypatch.setattr(app.conf, "broker_url", redis.url)
    monkeypatch.setattr(app, "_pool", None)
    monkeypatch.setattr(app.amqp, "_producer_pool", None)
    return redis


def send(db: Database, redis: Redis, tmp_path: Path, tid: int) -> subprocess.CompletedProcess:
    command = [*arena_command(), "tournament", "run", str(tid), "--backend", "celery", "--detach"]
    env = cluster_env(db, redis, tmp_path / "sender")
    done = subprocess.run(command, env=env, cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def test_the_follower_warns_of_jobs_no_worker_takes_and_the_workers_say_what_they_take(
    cluster_db, runtime, broker, workers: Workers, tmp_path, node_tournament
):
    from workers.client.consumers import Unserved, consumed_queues, unserved_queues

    workers.start()  # on the default queue, arena: no Node here
    wait_ready(workers, 1)
    wait_for(lambda: "arena" in (consumed_queues() or ()), TIMEOUT_S, "the worker answering")
    assert "arena.node" not in (consumed_queues() or ())
    assert "arena.build" in (consumed_queues() or ())  # it builds what it plays
    sent = send(cluster_db, broker, tmp_path, node_tournament)
    total = len(matches(cluster_db, node_tournament))
    assert f"{total} matches sent" in sent.stdout
    assert ADVICE in " ".join(sent.stderr.split()), sent.stderr
    assert "Traceback" not in sent.stderr
    assert unserved_queues() == [Unserved("arena.node", total)]
    # the arena queue is taken: jobs sent there are not flagged while they wait
    assert all(u.queue != "arena" for u in unserved_queues(["arena"]) or [])


def test_tournament_list_shows_lost_leases_and_matches_no_worker_takes(
    cluster_db, runtime, broker, tmp_path, node_tournament
):
    send(cluster_db, broker, tmp_path, node_tournament)
    first, *rest = matches(cluster_db, node_tournament)
    with cluster_db.session() as s:  # one match's worker was lost: its lease ran out
        s.execute(
            update(Match)
            .where(Match.id == first.id)
            .values(status="running", lease_expires_at=utcnow() - timedelta(seconds=5))
        )
    time.sleep(float(LEASE_S))  # the others have waited a lease since they were sent
    listed = subprocess.run(
        [*arena_command(), "tournament", "list"],
        env=cluster_env(cluster_db, broker, tmp_path / "lister"),
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert listed.returncode == 0, listed.stdout + listed.stderr
    out = " ".join(listed.stdout.split())
    assert "1 running with an expired lease" in out, listed.stdout
    assert f"{len(rest)} waiting in arena.node, which no worker takes" in out, listed.stdout
    assert "arena worker --queues NAME" in out


def test_the_dashboard_warns_an_organiser_of_jobs_no_worker_takes(
    cluster_db, runtime, redis, broker, tmp_path, node_tournament, monkeypatch
):
    client = _organiser(cluster_db, runtime, redis, monkeypatch)
    page = f"/tournaments/{node_tournament}"
    assert "arena.node" not in client.get(page).get_data(as_text=True)  # nothing waits yet
    post_form(client, f"{page}/start", page=page)  # the page shown next asks again
    for shown in (page, "/tournaments/"):
        html = " ".join(client.get(shown).get_data(as_text=True).split())
        assert ADVICE.replace("`", "") in html.replace("`", ""), shown
    anonymous = client.application.test_client()
    assert "arena.node" not in anonymous.get("/tournaments/").get_data(as_text=True)


def test_a_broker_away_is_no_answer_and_never_an_error(monkeypatch) -> None:
    """A follower asks while Redis restarts: it gets no answer, says nothing, goes on."""
    from workers.app import app
    from workers.client.consumers import QueueWatch, consumed_queues, unserved_queues

    monkeypatch.setattr(app.conf, "broker_url", "redis://127.0.0.1:1/0")  # nothing listens
    monkeypatch.setattr(app, "_pool", None)
    monkeypatch.setattr(app.amqp, "_producer_pool", None)
    assert unserved_queues() is None and consumed_queues() is None
    said: list[str] = []
    QueueWatch(lambda text, _warning: said.append(text)).check()
    assert said == []
