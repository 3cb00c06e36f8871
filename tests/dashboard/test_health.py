"""The dashboard's /healthz, /readyz and /metrics and the organiser's status page, on real
databases and a real Redis: ready and not (the database away, a stale schema, a broker that
refuses or is away), the metrics parsed as Prometheus reads them, and who may see the page."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from kombu import Connection
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import func, select

from arena.config import Settings
from arena.ops.broker import heartbeat, write_heartbeat
from arena.ops.checks import DEADLINE_S, head_revision
from arena.runtime import Runtime
from arena.store import BotVersion, Database, Match
from arena.store.migrate import downgrade
from dashboard import create_app
from tests.cluster import Redis
from tests.dashboard.users import log_in, make_user
from tests.support import free_port

QUICK_S = DEADLINE_S + 2.5  # a refused connection answers at once; this is only a bound


def app_on(db_url: str, data_dir: Path, broker_url: str | None = None):
    settings = Settings(db_url, data_dir, broker_url or "", broker_configured=bool(broker_url))
    return create_app(Database(db_url), Runtime(settings), TESTING=True)


def closed_postgres() -> str:
    return f"postgresql://arena:secret@127.0.0.1:{free_port()}/arena"


def url_of(db: Database) -> str:
    return db.url.render_as_string(hide_password=False)


def samples(text: str) -> dict[tuple[str, frozenset], float]:
    """Every sample of a scrape, by name and labels (parsed as Prometheus parses it)."""
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def sample(found: dict, name: str, **labels: str) -> float | None:
    return found.get((name, frozenset(labels.items())))


def test_healthz_answers_while_the_database_is_away(tmp_path):
    client = app_on(closed_postgres(), tmp_path / "d").test_client()
    answer = client.get("/healthz")
    assert (answer.status_code, answer.get_json()) == (200, {"status": "ok"})
    assert "Set-Cookie" not in answer.headers


@pytest.mark.databases("sqlite", "postgres")
def test_readyz_on_a_current_database(db, tmp_path):
    answer = app_on(url_of(db), tmp_path / "d").test_client().get("/readyz")
    assert answer.status_code == 200, answer.get_json()
    assert answer.get_json() == {
        "status": "ok",
        "checks": {
            "database": {"ok": True, "detail": "answers"},
            "migrations": {"ok": True, "detail": f"at {head_revision()}"},
        },
    }


def test_readyz_says_the_schema_is_behind(db, tmp_path):
    downgrade(db.url, "-1")
    answer = app_on(url_of(db), tmp_path / "d").test_client().get("/readyz")
    body = answer.get_json()
    assert answer.status_code == 503 and body["status"] == "unavailable"
    assert body["checks"]["database"]["ok"] is True
    [failed] = body["failed"]
    assert failed.startswith("migrations: the database is at ")
    assert failed.endswith(f"this code at {head_revision()}: run `arena db upgrade`")


def test_readyz_answers_quickly_with_the_database_and_the_broker_away(tmp_path):
    app = app_on(closed_postgres(), tmp_path / "d", f"redis://127.0.0.1:{free_port()}/0")
    started = time.monotonic()
    answer = app.test_client().get("/readyz")
    assert time.monotonic() - started < QUICK_S
    body = answer.get_json()
    assert answer.status_code == 503
    assert [line.split(":")[0] for line in body["failed"]] == ["database", "migrations", "broker"]
    assert "Connection refused" in body["checks"]["database"]["detail"]
    assert body["checks"]["broker"]["detail"].startswith("unreachable: ")


def test_readyz_says_the_broker_refuses_a_wrong_password(db, tmp_path, locked_redis: Redis):
    good = app_on(url_of(db), tmp_path / "good", locked_redis.url).test_client().get("/readyz")
    assert good.status_code == 200
    assert good.get_json()["checks"]["broker"] == {"ok": True, "detail": "answers"}

    wrong = locked_redis.url.replace("first-password", "guessed")
    answer = app_on(url_of(db), tmp_path / "bad", wrong).test_client().get("/readyz")
    assert answer.status_code == 503
    assert answer.get_json()["failed"] == [
        "broker: refused: invalid username-password pair or user is disabled."
    ]


def test_metrics_count_requests_by_route_and_read_the_database(client, db, site):
    client.get("/healthz")
    for bot_id in list(site.bots.values())[:2]:
        assert client.get(f"/bots/{bot_id}").status_code == 200
    client.get("/no/such/page")
    answer = client.get("/metrics")
    assert answer.status_code == 200 and answer.content_type.startswith("text/plain")
    found = samples(answer.get_data(as_text=True))

    count = "arena_http_request_duration_seconds_count"
    assert sample(found, count, method="GET", route="/healthz", status="2xx") == 1
    assert sample(found, count, method="GET", route="/bots/<int:bot_id>", status="2xx") == 2
    assert sample(found, count, method="GET", route="unmatched", status="4xx") == 1
    assert not [key for key in found if f"/bots/{site.bots['alpha']}" in str(key)]

    with db.session(read_only=True) as s:
        by_status = dict(s.execute(select(Match.status, func.count()).group_by(Match.status)).all())
        valid = s.scalar(select(func.count()).where(BotVersion.status == "valid"))
        played = s.scalar(select(func.count()).where(Match.status == "done"))
    for status in ("pending", "running", "done", "failed"):
        assert sample(found, "arena_matches", status=status) == by_status.get(status, 0)
    assert by_status["done"] == 3 and by_status["running"] == 1
    assert sample(found, "arena_bot_versions", status="valid") == valid
    assert sample(found, "arena_match_duration_seconds_count") == played
    assert sample(found, "arena_match_duration_seconds_bucket", le="+Inf") == played
    assert sample(found, "arena_bot_start_failures") == 0
    assert sample(found, "arena_source_up", source="database") == 1
    assert sample(found, "arena_source_up", source="broker") is None  # none configured


def test_metrics_read_the_queue_depths_from_the_broker(db, tmp_path, redis: Redis):
    with Connection(redis.url) as conn:
        queue = conn.SimpleQueue("arena.node")
        queue.put({"job": 1})
        queue.put({"job": 2})
        queue.close()
    client = app_on(url_of(db), tmp_path / "d", redis.url).test_client()
    found = samples(client.get("/metrics").get_data(as_text=True))
    assert sample(found, "arena_queue_depth", queue="arena.node") == 2
    assert sample(found, "arena_queue_depth", queue="arena") == 0
    assert sample(found, "arena_source_up", source="broker") == 1


def test_the_status_page_is_for_organisers(client, db):
    assert client.get("/organiser/status").status_code == 302  # a visitor: to the log-in page
    make_user(db, "player")
    log_in(client, "player")
    assert client.get("/organiser/status").status_code == 403
    make_user(db, "root", admin=True)
    log_in(client, "root")
    page = client.get("/organiser/status")
    html = page.get_data(as_text=True)
    assert page.status_code == 200
    assert 'data-check="database"' in html and 'data-check="migrations"' in html
    assert "no broker is configured (ARENA_BROKER_URL): no queues or workers" in html
    assert "3 played" in html  # the site's numbers
    assert 'href="/organiser/status"' in client.get("/tournaments/").get_data(as_text=True)


def test_the_status_page_lists_queues_and_the_workers_seen(db, tmp_path, redis: Redis):
    with Connection(redis.url) as conn:
        conn.SimpleQueue("arena.java").put({"job": 1})
        for job in range(3):  # a queue the platform does not know, which a worker names
            conn.SimpleQueue("arena.gpu").put({"job": job})
    queues = ["arena", "arena.recovery", "arena.gpu"]
    beat = heartbeat("arena-7@host-a", queues, 2, time.time() - 120)
    write_heartbeat(redis.url, beat, ttl_s=60)
    client = app_on(url_of(db), tmp_path / "d", redis.url).test_client()
    make_user(db, "root", admin=True)
    log_in(client, "root")
    html = client.get("/organiser/status").get_data(as_text=True)
    assert 'data-check="broker"' in html and "Ready" in html
    assert 'data-worker="arena-7@host-a"' in html and "arena, arena.recovery, arena.gpu" in html
    row = html.split('data-queue="arena.gpu"')[1].split("</tr>")[0]
    assert ">3<" in row and "arena-7@host-a" in row
    row = html.split('data-queue="arena.java"')[1].split("</tr>")[0]
    assert ">1<" in row and "arena worker --queues arena.java" in row  # waits, unserved
    row = html.split('data-queue="arena"')[1].split("</tr>")[0]
    assert "arena-7@host-a" in row


def test_the_status_page_renders_at_once_with_the_broker_away(db, tmp_path):
    client = app_on(url_of(db), tmp_path / "d", f"redis://127.0.0.1:{free_port()}/0").test_client()
    make_user(db, "root", admin=True)
    log_in(client, "root")
    started = time.monotonic()
    page = client.get("/organiser/status")
    assert time.monotonic() - started < QUICK_S
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and "Not ready" in html
    assert "the broker does not answer: queues and workers cannot be read" in html
