"""Real services for the Celery backend, as fixtures (a plugin of ``tests/conftest.py``):
``redis``, a ``redis-server`` of the test's own on a free port; ``cluster_db``, a private
Postgres schema; ``workers``, ``arena worker`` processes (each with its own data dir, so they
share no disk). Missing Redis, Postgres or bwrap: skipped locally, failed under CI=true.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.store import Database, upgrade
from tests.support import POLICY, arena_command, free_port, need, need_sandbox, pg_schema

LEASE_S = "3"
VISIBILITY_S = "30"


class Redis:
    """A throw-away redis-server (no persistence) that a test may stop and start again;
    with a ``password``, it asks for it (``requirepass``) and ``url`` carries it."""

    def __init__(self, workdir: Path, password: str | None = None) -> None:
        self.port, self.workdir, self.proc = free_port(), workdir, None
        self.password = password

    @property
    def url(self) -> str:
        auth = f":{self.password}@" if self.password else ""
        return f"redis://{auth}127.0.0.1:{self.port}/0"

    def start(self) -> None:
        command = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1"]
        options = ["--save", "", "--appendonly", "no", "--dir", str(self.workdir)]
        if self.password:
            options += ["--requirepass", self.password]
        self.proc = subprocess.Popen([*command, *options], stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            time.sleep(0.05)
        pytest.fail(f"redis-server did not listen on port {self.port}")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture
def redis(tmp_path: Path) -> Iterator[Redis]:
    need(shutil.which("redis-server") is not None, "redis-server is not installed")
    server = Redis(tmp_path)
    server.start()
    yield server
    server.stop()


@pytest.fixture
def locked_redis(tmp_path: Path) -> Iterator[Redis]:
    """A redis-server of the test's own that asks for a password (its ``url`` carries it)."""
    need(shutil.which("redis-server") is not None, "redis-server is not installed")
    folder = tmp_path / "locked-redis"
    folder.mkdir()
    server = Redis(folder, password="first-password")
    server.start()
    yield server
    server.stop()


@pytest.fixture
def cluster_db() -> Iterator[Database]:
    """A migrated private schema on the test Postgres (the cluster's database)."""
    need_sandbox(POLICY)
    with pg_schema("arena_workers") as url:
        upgrade(url)
        db = Database(url)
        yield db
        db.dispose()


def cluster_env(db: Database, redis: Redis, data_dir: Path) -> dict[str, str]:
    return {
        **os.environ,
        "ARENA_DATABASE_URL": db.url.render_as_string(hide_password=False),
        "ARENA_BROKER_URL": redis.url,
        "ARENA_DATA_DIR": str(data_dir),
        "ARENA_SANDBOX_MODE": "bwrap",
        "ARENA_LEASE_SECONDS": LEASE_S,
        "ARENA_VISIBILITY_TIMEOUT": VISIBILITY_S,
        "COLUMNS": "200",
    }


class Workers:
    """``arena worker`` processes, each in its own session (so a kill takes its children)."""

    def __init__(self, db: Database, redis: Redis, root: Path) -> None:
        self.db, self.redis, self.root = db, redis, root
        self.procs: list[subprocess.Popen] = []
        self.env: dict[str, str] = {}  # more settings for the next workers started

    def start(self, concurrency: int = 1, *options: str) -> subprocess.Popen:
        data_dir = self.root / f"worker-{len(self.procs)}"
        log = open(self.root / f"worker-{len(self.procs)}.log", "wb")  # noqa: SIM115
        proc = subprocess.Popen(
            [*arena_command(), "worker", "--concurrency", str(concurrency), *options],
            env={**cluster_env(self.db, self.redis, data_dir), **self.env},
            cwd=self.root,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        proc.data_dir = data_dir
        self.procs.append(proc)
        return proc

    def kill(self, proc: subprocess.Popen) -> None:
        """SIGKILL the worker and its pool processes at once, as a lost machine."""
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()

    def stop_all(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in self.procs:
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()

    def logs(self) -> str:
        return "\n".join(p.read_text(errors="replace")[-3000:] for p in self.root.glob("*.log"))


@pytest.fixture
def workers(cluster_db: Database, redis: Redis, tmp_path: Path) -> Iterator[Workers]:
    pool = Workers(cluster_db, redis, tmp_path)
    yield pool
    pool.stop_all()
