"""The platform's real services as a benchmark starts them on this machine: a fresh Postgres
database, a Redis server of its own, ``arena`` processes (dashboard, beat, workers) each with
its own log, and a TCP forwarder in front of Postgres that can cut the database away.

Needs PostgreSQL on 127.0.0.1:5432 (trust), redis-server and bwrap."""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parents[1]
ADMIN_URL = "postgresql://postgres@127.0.0.1:5432/postgres"
ARENA = [sys.executable, "-m", "arena"]
# A process of its own, above the others in CPU priority, so that neither the benchmark's
# threads nor the loaded machine slow the database's bytes (a forwarder is no part of a
# real deployment: it should cost the stack as little as it can).
FORWARDER = """
import os, sys
from tests.dashboard.forwarder import Forwarder
os.setpriority(os.PRIO_PROCESS, 0, -10)  # ahead of the stack it carries (as root)
with Forwarder(("127.0.0.1", 5432)) as forwarder:
    print(forwarder.port, flush=True)
    for line in sys.stdin:
        forwarder.cut() if line.strip() == "cut" else forwarder.restore()
        print("ok", flush=True)
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def fresh_database(prefix: str) -> str:
    """A new empty database's name."""
    name = f"{prefix}_{secrets.token_hex(4)}"
    with psycopg.connect(ADMIN_URL, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return name


def drop_database(name: str) -> None:
    with psycopg.connect(ADMIN_URL, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def arena(*args: str, env: dict[str, str]) -> str:
    """Run an ``arena`` command to its end; its output (exit on failure, with the output)."""
    out = subprocess.run([*ARENA, *args], env=env, capture_output=True, text=True, cwd=ROOT)
    if out.returncode:
        raise SystemExit(f"arena {' '.join(args)} failed:\n{out.stdout}\n{out.stderr}")
    return out.stdout


def started(argv: list[str], env: dict[str, str], log: Path) -> subprocess.Popen:
    """A process in a session of its own (a kill takes its children), logging to ``log``; in
    the repository's root, where no benchmark's name shadows a package."""
    with open(log, "ab") as out:  # the child holds its own copy of the descriptor
        return subprocess.Popen(
            argv, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True, cwd=ROOT
        )


def kill(proc: subprocess.Popen, sig: int = signal.SIGKILL) -> None:
    """``sig`` to the process's whole session, then wait for it."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, sig)
    try:
        proc.wait(60)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def listening(port: int, timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return True
        time.sleep(0.05)
    return False


class Redis:
    """A redis-server of the benchmark's own (nothing kept on disk: a restart loses its jobs,
    as a broker without persistence does)."""

    def __init__(self, workdir: Path) -> None:
        self.port, self.workdir = free_port(), workdir
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        argv = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", ""]
        argv += ["--appendonly", "no", "--dir", str(self.workdir)]
        self.proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL)
        if not listening(self.port):
            raise SystemExit(f"redis-server did not listen on port {self.port}")

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()


class DatabaseLink:
    """Postgres through a forwarder that can be cut (connections closed, new ones refused)
    and restored on the same port."""

    def __init__(self, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", FORWARDER],
            env={**env, "PYTHONPATH": str(ROOT)},
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout is not None
        self.port = int(self.proc.stdout.readline())

    def _say(self, word: str) -> None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(word + "\n")
        self.proc.stdin.flush()
        self.proc.stdout.readline()

    def cut(self) -> None:
        self._say("cut")

    def restore(self) -> None:
        self._say("restore")

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(10)
