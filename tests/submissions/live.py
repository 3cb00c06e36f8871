"""A live dashboard for end-to-end tests: ``arena dashboard`` (waitress) in a subprocess on a
free port, on the test's database, and ``arena bot submit`` run as a contestant would."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from arena.store import Database
from tests.support import arena_command, free_port

PRIVATE = ("ARENA_BROKER_URL", "ARENA_TOKEN", "ARENA_SERVER", "XDG_CONFIG_HOME")


def platform_env(db: Database, data_dir: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in PRIVATE}
    env |= {
        "ARENA_DATABASE_URL": db.url.render_as_string(hide_password=False),
        "ARENA_DATA_DIR": str(data_dir),
        "ARENA_SANDBOX_MODE": "bwrap",
        "COLUMNS": "200",
    }
    return env | extra


@contextmanager
def live_dashboard(db: Database, root: Path, **extra: str) -> Iterator[str]:
    """The dashboard's URL while it runs (its own data dir under ``root``)."""
    port = free_port()
    log = open(root / "dashboard.log", "wb")  # noqa: SIM115
    proc = subprocess.Popen(
        [*arena_command(), "dashboard", "--port", str(port), "--workers", "1"],
        env=platform_env(db, root / "server-data", **extra),
        cwd=root,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        _wait_listening(port, proc, root / "dashboard.log")
        yield f"http://127.0.0.1:{port}"
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        log.close()


def _wait_listening(port: int, proc: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"the dashboard exited: {log.read_text(errors='replace')[-2000:]}")
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    pytest.fail("the dashboard did not listen within 30 s")


def submit_cli(
    path: Path, server: str, home: Path, *args: str, token: str | None = None
) -> subprocess.CompletedProcess:
    """``arena bot submit PATH --server SERVER`` as a contestant's terminal runs it (its
    config folder is ``home``; ``token`` goes in ARENA_TOKEN)."""
    env = {k: v for k, v in os.environ.items() if k not in PRIVATE}
    env |= {"XDG_CONFIG_HOME": str(home), "COLUMNS": "200"}
    if token is not None:
        env["ARENA_TOKEN"] = token
    return subprocess.run(
        [*arena_command(), "bot", "submit", str(path), "--server", server, *args],
        env=env,
        cwd=home,
        capture_output=True,
        text=True,
        timeout=300,
    )
