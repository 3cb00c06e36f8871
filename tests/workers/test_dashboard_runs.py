"""An organiser's start and stop from the dashboard with a broker configured: the matches go
to real Celery workers through Redis; a stop withdraws the jobs already queued (workers skip
them) and interrupts the matches being played (given back, not counted), and a new start
sends them again and the tournament finishes."""

from __future__ import annotations

import dataclasses

from sqlalchemy import select

from arena.store import Match
from arena.store.models import LiveRecord, TournamentRun
from dashboard import create_app
from tests.dashboard.users import log_in, make_user, post_form
from tests.services.test_executor import (
    assert_counted_once,
    matches,
    tournament_status,
    wait_for,
)
from tests.services.test_stop_mid_match import slow_bots
from tests.workers.test_celery import wait_ready
from workers.client.matches import queues_empty

ENTRANTS = ["house:heuristic", "house:random", "house:heuristic#2", "house:random#2"]


def _organiser(cluster_db, runtime, redis, monkeypatch):
    """A logged-in admin's client of a dashboard that sends matches to ``redis``."""
    from workers.app import app

    monkeypatch.setattr(app.conf, "broker_url", redis.url)
    # Connections pooled by an earlier test point at that test's Redis: start afresh.
    monkeypatch.setattr(app, "_pool", None)
    monkeypatch.setattr(app.amqp, "_producer_pool", None)
    broker = dataclasses.replace(runtime.settings, broker_configured=True)
    web = create_app(cluster_db, type(runtime)(broker, policy=runtime.policy), TESTING=True)
    client = web.test_client()
    make_user(cluster_db, "root", admin=True)
    log_in(client, "root")
    return client


def _create(client, entrants: list[str], games: int, deals: int, tables: int) -> int:
    form = {"bots": entrants, "games_per_match": str(games), "deals": str(deals)}
    form["tables"] = str(tables)
    created = post_form(client, "/tournaments/new", form, page="/tournaments/new")
    return int(created.headers["Location"].rpartition("/")[2])


def test_start_and_stop_from_the_dashboard_drive_the_celery_workers(
    cluster_db, runtime, redis, workers, monkeypatch
):
    client = _organiser(cluster_db, runtime, redis, monkeypatch)
    tid = _create(client, ENTRANTS, games=1, deals=1, tables=3)
    page = f"/tournaments/{tid}"

    post_form(client, f"{page}/start", page=page)
    assert "started (celery backend)" in client.get(page).get_data(as_text=True)
    assert all(m.queued_at is not None for m in matches(cluster_db, tid))
    post_form(client, f"{page}/stop", page=page)  # before any worker took a job
    assert all(m.queued_at is None for m in matches(cluster_db, tid))
    assert tournament_status(cluster_db, tid) == "draft"

    workers.start()
    wait_ready(workers, 1)
    wait_for(queues_empty, 60, "the withdrawn jobs taken off the queue")
    wait_for(lambda: not _running(cluster_db, tid), 30, "no match running")
    assert {m.status for m in matches(cluster_db, tid)} == {"pending"}, workers.logs()

    post_form(client, f"{page}/start", page=page)
    with cluster_db.session(read_only=True) as s:
        assert s.get(TournamentRun, tid).stopped_at is None
    wait_for(lambda: tournament_status(cluster_db, tid) == "done", 180, "the tournament done")
    assert {m.status for m in matches(cluster_db, tid)} == {"done"}


def _running(db, tid: int) -> bool:
    with db.session(read_only=True) as s:
        query = select(Match.id).where(Match.tournament_id == tid, Match.status == "running")
        return s.scalar(query) is not None


def test_a_stop_from_the_dashboard_interrupts_the_match_a_worker_plays(
    cluster_db, runtime, redis, workers, monkeypatch, tmp_path
):
    client = _organiser(cluster_db, runtime, redis, monkeypatch)
    slow = slow_bots(cluster_db, runtime, tmp_path)
    tid = _create(client, [*slow, *ENTRANTS[:2]], games=2, deals=5, tables=1)
    page = f"/tournaments/{tid}"
    workers.start()
    wait_ready(workers, 1)

    post_form(client, f"{page}/start", page=page)
    wait_for(lambda: _live(cluster_db, tid), 60, "a worker well into the match")
    post_form(client, f"{page}/stop", page=page)
    # Finishing would take the bots 10 s more: a worker that only skips queued jobs fails.
    wait_for(lambda: not _running(cluster_db, tid), 8, "the match given back", workers.logs)
    (match,) = matches(cluster_db, tid)
    assert (match.status, match.attempts, match.queued_at) == ("pending", 0, None)
    assert "stopped" in workers.logs()
    assert all(proc.poll() is None for proc in workers.procs)  # the worker goes on

    post_form(client, f"{page}/start", page=page)  # sends it again, as never sent
    wait_for(lambda: tournament_status(cluster_db, tid) == "done", 180, "the tournament done")
    (match,) = matches(cluster_db, tid)
    assert (match.status, match.attempts) == ("done", 1)
    assert_counted_once(cluster_db, tid, games=2)


def _live(db, tid: int) -> bool:
    with db.session(read_only=True) as s:
        query = select(LiveRecord.match_id).join(Match).where(Match.tournament_id == tid)
        return s.scalar(query) is not None
