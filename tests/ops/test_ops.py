"""``arena.ops`` against real services: the broker's answers told apart (refused, unreachable),
heartbeats through a real Redis, the database checks on a current, a stale, a missing and an
unreachable database, the deadline that cuts a peer that never answers, and what a worker
counts from what its jobs stored."""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import threading
import time
from collections.abc import Iterator

import pytest
from prometheus_client import REGISTRY
from sqlalchemy import select, update

from arena.game import PAGAT
from arena.ops import worker_metrics
from arena.ops.broker import (
    HEARTBEAT_PREFIX,
    forget_heartbeat,
    heartbeat,
    heartbeats,
    masked,
    ping,
    redis_client,
    write_heartbeat,
)
from arena.ops.checks import (
    DatabaseProbe,
    Readiness,
    ask,
    database_checks,
    head_revision,
    service_readiness,
)
from arena.ops.deadline import all_within
from arena.ops.metrics import Cached
from arena.ops.watch import BrokerWatch, WorkerHealth
from arena.runtime import Runtime
from arena.store import (
    Database,
    Match,
    MatchFault,
    add_bot_version,
    create_tournament,
    set_bot_status,
)
from arena.store.migrate import downgrade
from arena.tournaments.spec import TournamentSpec
from tests.cluster import Redis
from tests.support import free_port

CLOSED_PG = "postgresql://arena:secret@127.0.0.1:{port}/arena"


def _closed_port() -> int:
    """A port nothing listens on (just freed: refused at once)."""
    return free_port()


@pytest.fixture
def silent_server() -> Iterator[int]:
    """A port that accepts connections and never says a word (a hung peer)."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        yield listener.getsockname()[1]


def by_name(readiness: Readiness) -> dict[str, tuple[bool, str]]:
    return {c.name: (c.ok, c.detail) for c in readiness.checks}


# --------------------------------------------------------------------------- the broker


def test_masked_hides_the_password_only():
    assert masked("redis://:hunter2@10.0.0.5:6379/0") == "redis://:**@10.0.0.5:6379/0"
    assert masked("amqp://arena:pw@host/vhost") == "amqp://arena:**@host/vhost"
    assert masked("redis://10.0.0.5:6379/0") == "redis://10.0.0.5:6379/0"


def test_a_broker_that_refuses_is_told_from_one_that_is_away(locked_redis: Redis):
    assert ping(locked_redis.url).ok
    wrong = locked_redis.url.replace("first-password", "not-it")
    answer = ping(wrong)
    assert (answer.ok, answer.refused) == (False, True)
    assert "invalid username-password pair" in answer.detail
    anonymous = ping(f"redis://127.0.0.1:{locked_redis.port}/0")
    assert anonymous.refused and "Authentication required" in anonymous.detail
    away = ping(f"redis://127.0.0.1:{_closed_port()}/0")
    assert (away.ok, away.refused, away.kind) == (False, False, "unreachable")
    assert "Connection refused" in away.detail


def test_heartbeats_are_written_listed_and_forgotten(locked_redis: Redis):
    url = locked_redis.url
    started = time.time()
    for name in ("w-b@host", "w-a@host"):
        write_heartbeat(url, heartbeat(name, ["arena", "audit"], 2, started), ttl_s=30)
    client = redis_client(url)
    client.set(HEARTBEAT_PREFIX + "garbage", "not json")  # skipped, not fatal
    assert 0 < client.ttl(HEARTBEAT_PREFIX + "w-a@host") <= 30
    client.close()

    found = heartbeats(url)
    assert [b.name for b in found] == ["w-a@host", "w-b@host"]
    assert found[0].queues == ("arena", "audit") and found[0].concurrency == 2
    assert found[0].started == started and found[0].seen >= started
    assert found[0].host == socket.gethostname()
    forget_heartbeat(url, "w-b@host")
    assert [b.name for b in heartbeats(url)] == ["w-a@host"]


# --------------------------------------------------------------------------- the database


def test_a_current_database_is_ready(db: Database):
    probe = DatabaseProbe(db.url)
    assert by_name(service_readiness(probe, None)) == {
        "database": (True, "answers"),
        "migrations": (True, f"at {head_revision()}"),
    }


def test_a_stale_schema_names_both_revisions(db: Database):
    downgrade(db.url, "-1")
    checks = by_name(service_readiness(DatabaseProbe(db.url), None))
    ok, detail = checks["migrations"]
    assert checks["database"][0] and not ok
    assert f"this code at {head_revision()}: run `arena db upgrade`" in detail


def test_a_missing_sqlite_file_is_not_created_by_the_probe(tmp_path):
    path = tmp_path / "none.db"
    checks = database_checks(DatabaseProbe(f"sqlite:///{path}"))
    assert [(c.name, c.ok) for c in checks] == [("database", False), ("migrations", False)]
    assert f"no database file at {path}" in checks[0].detail
    assert not path.exists()


def test_an_unreachable_database_fails_at_once_and_a_silent_one_at_the_deadline(
    silent_server: int,
):
    started = time.monotonic()
    away = by_name(service_readiness(DatabaseProbe(CLOSED_PG.format(port=_closed_port())), None))
    assert away["database"][0] is False and "Connection refused" in away["database"][1]
    assert away["migrations"] == (False, "not checked: the database does not answer")
    silent = DatabaseProbe(CLOSED_PG.format(port=silent_server))
    found = by_name(service_readiness(silent, None))
    elapsed = time.monotonic() - started
    assert found["database"][0] is False
    # the probe's own 2-s connect timeout, or the 2.5-s deadline: never the pool's 10 s
    assert elapsed < 8, elapsed


def test_the_deadline_answers_for_a_question_that_never_ends():
    never = threading.Event()
    results = all_within(1.0, [lambda: never.wait() and "late", lambda: "quick"])
    assert results == [None, "quick"]

    def stuck() -> list:
        never.wait()
        return []

    readiness = ask([(("stuck",), stuck)], deadline_s=1.0)
    assert by_name(readiness) == {"stuck": (False, "no answer within 1 s")}
    never.set()


def test_cached_reads_once_per_period():
    reads: list[int] = []
    cached = Cached(lambda: reads.append(1) or len(reads), ttl_s=3600)
    assert (cached.get(), cached.get()) == (1, 1)
    cached.ttl_s = 0
    assert cached.get() == 2


# --------------------------------------------------------------------------- a worker's counts


def house(name: str) -> dict:
    return {"name": name, "version": "1", "house": "random"}


def _match(db: Database, runtime: Runtime) -> int:
    """A stored match whose result recorded one start-up fault."""
    with db.session() as s:
        versions = [
            add_bot_version(s, runtime.blobs, name.encode(), house(name), "valid")
            for name in ("a", "b", "c", "d")
        ]
        spec = TournamentSpec(name="t", rules=PAGAT, games_per_match=1, seed=3)
        t = create_tournament(s, spec.columns(), versions, [(0, (0, 1, 2, 3), 11)])
        match = s.scalars(select(Match).where(Match.tournament_id == t.id)).one()
        s.add(
            MatchFault(
                match_id=match.id,
                bot_version_id=versions[1].id,
                kind="start_failed",
                reason="could not start: no such file",
            )
        )
        return match.id


def _sample(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def test_a_worker_counts_what_its_jobs_stored(db: Database, store_runtime: Runtime):
    match_id = _match(db, store_runtime)
    before = {
        "done": _sample("arena_worker_matches_total", status="done"),
        "faults": _sample("arena_worker_bot_start_failures_total"),
        "played": _sample("arena_worker_match_duration_seconds_count"),
        "sandbox": _sample("arena_worker_platform_errors_total", error="SandboxUnavailable"),
    }
    worker_metrics.match_ended(db, match_id, "done", 12.5)
    with db.session() as s:
        reason = "SandboxUnavailable: bwrap cannot create a user namespace here"
        s.execute(update(Match).where(Match.id == match_id).values(reason=reason))
    worker_metrics.match_ended(db, match_id, "retry", 0.1)

    assert _sample("arena_worker_matches_total", status="done") == before["done"] + 1
    assert _sample("arena_worker_bot_start_failures_total") == before["faults"] + 1
    assert _sample("arena_worker_match_duration_seconds_count") == before["played"] + 1
    sandbox = _sample("arena_worker_platform_errors_total", error="SandboxUnavailable")
    assert sandbox == before["sandbox"] + 1


def test_the_metrics_folders_of_dead_workers_are_swept(tmp_path):
    ended = subprocess.Popen(["true"])
    ended.wait()  # its pid names no process now
    dead = tmp_path / f"{worker_metrics.FOLDER_PREFIX}{ended.pid}-abc"
    mine = tmp_path / f"{worker_metrics.FOLDER_PREFIX}{os.getpid()}-def"
    for folder in (dead, mine):
        folder.mkdir()
        (folder / "counter_1.db").write_bytes(b"")
    assert worker_metrics.sweep_folders(tmp_path) == [dead]
    assert mine.exists() and not dead.exists()


def test_a_worker_is_ready_once_its_consumer_takes_jobs(db: Database, locked_redis: Redis):
    watch = BrokerWatch(locked_redis.url)
    health = WorkerHealth(DatabaseProbe(db.url), watch, "w@host", ["arena", "audit"], 1)
    found = by_name(health.readiness())
    assert found["database"] == (True, "answers") and found["broker"] == (True, "answers")
    assert found["consumer"] == (False, "takes no job: the worker is starting")
    health.consuming(True)
    assert health.readiness().ok
    assert by_name(health.readiness())["consumer"] == (True, "takes jobs from 2 queues")
    health.consuming(False)
    assert by_name(health.readiness())["consumer"] == (
        False,
        "takes no job: the worker is stopping",
    )


def test_the_broker_watch_logs_each_change_once_and_counts_failures(locked_redis: Redis, caplog):
    wrong = locked_redis.url.replace("first-password", "stale")
    watch = BrokerWatch(wrong)
    with caplog.at_level(logging.WARNING, logger="arena.ops.watch"):
        watch.check()
        watch.check()  # the same refusal: counted, not logged again
        watch.url = locked_redis.url
        watch.check()
    lines = [(r.levelname, r.getMessage()) for r in caplog.records]
    assert len(lines) == 2, lines
    assert (
        lines[0][0] == "ERROR" and "refuses this worker (invalid username-password" in lines[0][1]
    )
    assert "redis://:**@127.0.0.1" in lines[0][1] and "stale" not in lines[0][1]
    assert lines[1] == ("WARNING", f"the broker at {watch.where} answers this worker again")
    assert watch.errors == {"refused": 2}


def test_a_worker_counts_a_verdict_and_its_time_from_the_upload(db, store_runtime):
    with db.session() as s:
        version = add_bot_version(s, store_runtime.blobs, b"x", house("e"))  # pending
        version_id = version.id
    before = (
        _sample("arena_worker_validations_total", status="valid"),
        _sample("arena_worker_validation_seconds_count"),
    )

    def judge():
        with db.session() as s:
            return set_bot_status(s, version_id, "valid")

    assert worker_metrics.judged(db, version_id, judge).status == "valid"
    worker_metrics.judged(db, version_id, judge)  # judged already: not counted again
    assert _sample("arena_worker_validations_total", status="valid") == before[0] + 1
    assert _sample("arena_worker_validation_seconds_count") == before[1] + 1
