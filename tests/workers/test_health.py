"""A worker's own /healthz, /readyz and /metrics (``arena worker --metrics-port``), with a real
Redis that asks for a password, Postgres and the worker's prefork pool: the matches its pool
processes played are counted across the pool, a broker that no longer takes its password
makes /readyz 503 with the broker's words and an ERROR line in its log, and a worker whose
broker refuses it at start does not start."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from arena.config import Settings
from arena.ops.broker import redis_client
from arena.runtime import Runtime
from arena.store import Database
from tests.cluster import LEASE_S, Redis, Workers
from tests.services.test_executor import HOUSE, matches, tournament, wait_for
from tests.support import POLICY, free_port
from tests.workers.test_celery import finished, follow_cli

TIMEOUT_S = 240  # a loaded 2-core machine: generous, never a measure


def get(port: int, path: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()
    except OSError:  # not listening yet
        return 0, b""


def counted(port: int) -> dict[tuple[str, frozenset], float]:
    status, body = get(port, "/metrics")
    assert status == 200
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(body.decode())
        for s in family.samples
    }


def queues_of(log: Path) -> list[str]:
    """The queues a worker said it takes (its first line: "NAME: database ..., queues A,B")."""
    first = log.read_text(errors="replace").splitlines()[0]
    return first.rpartition(", queues ")[2].split(",")


@pytest.fixture
def pool(cluster_db: Database, locked_redis: Redis, tmp_path: Path):
    workers = Workers(cluster_db, locked_redis, tmp_path)
    yield workers
    workers.stop_all()


def test_a_worker_serves_its_health_and_counts_across_its_pool(
    cluster_db: Database, locked_redis: Redis, pool: Workers, tmp_path: Path
):
    port = free_port()
    proc = pool.start(2, "--metrics-port", str(port))
    wait_for(lambda: get(port, "/healthz")[0] == 200, TIMEOUT_S, "/healthz", pool.logs)
    assert json.loads(get(port, "/healthz")[1]) == {"status": "ok"}
    wait_for(lambda: get(port, "/readyz")[0] == 200, TIMEOUT_S, "/readyz", pool.logs)
    status, body = get(port, "/readyz")
    taken = len(queues_of(tmp_path / "worker-0.log"))
    assert json.loads(body)["checks"] == {
        "database": {"ok": True, "detail": "answers"},
        "broker": {"ok": True, "detail": "answers"},
        "consumer": {"ok": True, "detail": f"takes jobs from {taken} queues"},
    }

    url = cluster_db.url.render_as_string(hide_password=False)
    here = Settings(url, tmp_path / "here", locked_redis.url, lease_s=float(LEASE_S))
    entrants = [*HOUSE, "house:random#2"]
    tid = tournament(cluster_db, Runtime(here, policy=POLICY), entrants, tables=4)
    finished(follow_cli(cluster_db, locked_redis, tmp_path, tid), pool)
    played = matches(cluster_db, tid)
    assert all(m.status == "done" for m in played) and len(played) == 4
    # Played in the pool's processes (``Match.worker`` is host:pid), counted there, and
    # served by the main process, which played none: the pool's files summed.
    assert {m.worker.split(":")[1] for m in played} != {str(proc.pid)}

    found = counted(port)
    done = found[("arena_worker_matches_total", frozenset({("status", "done")}))]
    assert done == len(played)
    assert found[("arena_worker_match_duration_seconds_count", frozenset())] == len(played)
    refused = ("arena_worker_broker_errors_total", frozenset({("kind", "refused")}))
    assert found[refused] == 0

    # The broker's password changes under the running worker: its connections stay in, a
    # new one with the old password is refused.
    client = redis_client(locked_redis.url)
    client.config_set("requirepass", "second-password")
    client.close()
    status, body = get(port, "/readyz")
    assert status == 503, body
    answer = json.loads(body)
    assert answer["checks"]["database"]["ok"] is True
    assert answer["failed"] == [
        "broker: refused: invalid username-password pair or user is disabled."
    ]
    assert counted(port)[refused] >= 1
    log = (tmp_path / "worker-0.log").read_text(errors="replace")
    assert "refuses this worker (invalid username-password pair" in log
    assert "ARENA_BROKER_PASSWORD_FILE" in log
    assert proc.poll() is None  # it keeps running, waiting to be let in


def test_a_worker_does_not_start_on_a_broker_that_refuses_it(
    locked_redis: Redis, pool: Workers, tmp_path: Path
):
    pool.env = {"ARENA_BROKER_URL": f"redis://127.0.0.1:{locked_redis.port}/0"}
    proc = pool.start(1, "--metrics-port", "0")
    assert proc.wait(timeout=TIMEOUT_S) != 0
    log = (tmp_path / "worker-0.log").read_text(errors="replace")
    assert "refuses this process (Authentication required.): check the password" in log, log
