"""A cluster that heals itself, everything real (Redis, Postgres, ``arena worker`` and
``arena beat`` processes, sandboxed bots):

- a detached run whose worker is killed mid-match finishes with nobody following it: the
  beat's recovery sends the lost match again once its lease has run out (the broker would
  hand the lost job out again only after its visibility timeout, an hour here);
- a 20-second database outage (new connections refused, open ones cut, through a proxy of
  the test's own) mid-tournament costs no job and no attempt: the workers stop taking jobs,
  wait for the database, and the tournament ends with every match recorded once and the
  standings of the embedded run on the same deals; the follower warns and keeps following.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest

from arena.game import PAGAT
from arena.runtime import Runtime
from arena.store import Database
from arena.tournaments.create import new_tournament
from arena.tournaments.executor import run_tournament
from arena.tournaments.spec import TournamentSpec
from tests.cluster import Redis, Workers, cluster_env
from tests.services.conftest import BAD_BOTS
from tests.services.test_executor import (
    HOUSE,
    arena_command,
    assert_counted_once,
    matches,
    tournament_status,
    wait_for,
)
from tests.workers.test_celery import (
    LOWCARD,
    bots,
    create,
    finished,
    follow_cli,
    kill_a_playing_worker,
    same_deals,
    table,
    wait_ready,
)

LEASE_S = 6  # a short lease: the time to finish after a kill is measured in leases
ONE_HOUR = "3600"  # the broker's visibility timeout: only the recovery can bring a job back
OUTAGE_S = 20


def start_beat(db: Database, redis: Redis, root: Path, env: dict[str, str]) -> subprocess.Popen:
    log = open(root / "beat.log", "wb")  # noqa: SIM115
    return subprocess.Popen(
        [*arena_command(), "beat"],
        env={**cluster_env(db, redis, root / "beat"), **env},
        cwd=root,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def worker_logs(root: Path) -> str:
    """The whole of every worker's log (``Workers.logs`` keeps the ends, for messages)."""
    return "\n".join(p.read_text(errors="replace") for p in sorted(root.glob("worker-*.log")))


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def test_a_detached_run_finishes_after_a_worker_is_killed_mid_match(
    cluster_db, runtime, redis, workers, tmp_path
):
    env = {"ARENA_LEASE_SECONDS": str(LEASE_S), "ARENA_VISIBILITY_TIMEOUT": ONE_HOUR}
    workers.env = env
    slow = bots(cluster_db, runtime, tmp_path, BAD_BOTS / "slow_random", "bob", "carol")
    tid = create(cluster_db, runtime, [*slow, *HOUSE], games=1, deals=2)
    workers.start(), workers.start()
    beat = start_beat(cluster_db, redis, tmp_path, env)
    try:
        wait_ready(workers, 2)
        finished(follow_cli(cluster_db, redis, tmp_path, tid, "--detach"), workers)
        killed = kill_a_playing_worker(cluster_db, tid, workers)
        since = time.monotonic()

        def done() -> bool:
            return tournament_status(cluster_db, tid) == "done"

        wait_for(done, 300, "the tournament finished by the cluster alone", workers.logs)
        took = time.monotonic() - since
    finally:
        stop(beat)
    print(f"\nfinished {took:.1f} s after the kill -9 (lease {LEASE_S} s: {took / LEASE_S:.2f})")
    after = matches(cluster_db, tid)
    assert all(m.status == "done" for m in after)
    assert any(m.attempts == 2 for m in after if m.id in killed), [
        (m.id, m.status, m.attempts) for m in after
    ] + [killed]
    assert_counted_once(cluster_db, tid, games=1)
    # the recovery's doing (its job's return value), not the broker's
    assert re.search(r"succeeded in [\d.]+s: '[1-9]\d* matches sent again", worker_logs(tmp_path))


class Outage:
    """A TCP forwarder to Postgres on a port of its own, which can go down (new connections
    refused, open ones cut) and come back on the same port."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target, self.port = target, 0
        self.listener: socket.socket | None = None
        self.conns: set[socket.socket] = set()
        self.lock = threading.Lock()

    def up(self) -> None:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(128)
        self.port, self.listener = listener.getsockname()[1], listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def down(self) -> None:
        listener, self.listener = self.listener, None
        if listener is not None:
            listener.close()  # connecting now is refused
        with self.lock:
            conns, self.conns = self.conns, set()
        for conn in conns:  # and every open connection is cut
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
            conn.close()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return  # closed: down
            try:
                server = socket.create_connection(self.target)
            except OSError:
                client.close()
                continue
            with self.lock:
                if self.listener is not listener:  # went down meanwhile
                    client.close(), server.close()
                    continue
                self.conns.update((client, server))
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        for conn in (source, sink):
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        with self.lock:
            self.conns.discard(source)


def waiting_jobs(redis: Redis, queue: str = "arena") -> int:
    out = subprocess.run(
        ["redis-cli", "-p", str(redis.port), "llen", queue],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(out.stdout.strip())


@pytest.fixture
def outage(cluster_db: Database):
    proxy = Outage((cluster_db.url.host or "127.0.0.1", cluster_db.url.port or 5432))
    proxy.up()
    yield proxy
    proxy.down()


def create_tables(db: Database, runtime: Runtime, refs: list[str], tables: int) -> int:
    rules = PAGAT.with_(deals_per_game=1)
    spec = TournamentSpec(refs, rules, games_per_match=2, seed=7, tables=tables)
    return new_tournament(db, runtime, spec).id


def test_a_database_outage_mid_tournament_costs_nothing(
    cluster_db, runtime, redis, tmp_path, outage
):
    refs = [*bots(cluster_db, runtime, tmp_path, LOWCARD, "low-a", "low-b"), *HOUSE]
    embedded = create_tables(cluster_db, runtime, refs, 14)
    celery = create_tables(cluster_db, runtime, refs, 14)
    same_deals(cluster_db, celery, embedded)
    run_tournament(cluster_db, runtime, embedded, workers=1)

    # Workers, beat and follower reach the database through the proxy; the test directly.
    through = Database(cluster_db.url.set(port=outage.port))
    workers = Workers(through, redis, tmp_path)
    workers.env = {"ARENA_VISIBILITY_TIMEOUT": ONE_HOUR}
    beat = start_beat(through, redis, tmp_path, workers.env)
    try:
        workers.start(), workers.start()
        wait_ready(workers, 2)
        follower = follow_cli(through, redis, tmp_path, celery)

        def played(count: int):
            return lambda: sum(m.status == "done" for m in matches(cluster_db, celery)) >= count

        wait_for(played(2), 180, "two matches played", workers.logs)
        outage.down()
        queued = waiting_jobs(redis)
        time.sleep(OUTAGE_S)
        # The workers stopped taking jobs: each took one more at most (and holds it).
        assert waiting_jobs(redis) >= queued - len(workers.procs), workers.logs()
        outage.up()
        out = finished(follower, workers, timeout=300)
    finally:
        stop(beat)
        workers.stop_all()
        through.dispose()

    assert "database unreachable" in out and "the database answers again" in out
    after = matches(cluster_db, celery)
    assert all(m.status == "done" for m in after)
    assert max(m.attempts for m in after) <= 2  # at most a takeover after the outage
    assert_counted_once(cluster_db, celery, games=2)
    assert table(cluster_db, celery) == table(cluster_db, embedded)
    logs = worker_logs(tmp_path)
    assert "database unreachable" in logs  # the workers met the outage...
    assert "raised unexpected" not in logs  # ...and no job failed for it
