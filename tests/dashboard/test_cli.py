"""``arena dashboard`` serves the CLI's database (waitress)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request

from tests.ladders.test_dashboard_ladder import processes_of


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_arena_dashboard_serves_the_configured_database(tmp_path):
    port = free_port()
    env = dict(
        os.environ,
        ARENA_DATABASE_URL=f"sqlite:///{tmp_path / 'fresh.db'}",
        ARENA_DATA_DIR=str(tmp_path / "data"),
    )
    env.pop("ARENA_SECRET_KEY", None)
    cmd = [sys.executable, "-m", "arena", "dashboard", "--port", str(port), "--workers", "1"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        body = _get(f"http://127.0.0.1:{port}/tournaments/")
        assert "No tournaments yet" in body  # a fresh SQLite file, migrated on start
    finally:
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=20)
    assert f"dashboard on http://127.0.0.1:{port}/" in out.decode()
    key = tmp_path / "data" / "secret_key"  # made on first start, private to its owner
    assert key.stat().st_mode & 0o777 == 0o600 and len(key.read_text()) >= 32


def test_a_busy_port_is_one_line_and_starts_no_ladder_run(tmp_path):
    """A real listener holds the port: the dashboard says so in one line, exits 1, and its
    ladder run (--play-ladder) was never started, so none outlives it."""
    data = tmp_path / "data"
    env = dict(
        os.environ, ARENA_DATABASE_URL=f"sqlite:///{tmp_path / 'a.db'}", ARENA_DATA_DIR=str(data)
    )
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        cmd = [sys.executable, "-m", "arena", "dashboard", "--port", str(port), "--play-ladder"]
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done
    assert done.stderr.splitlines() == [
        f"Error: port {port} is in use: stop what listens on it, or choose another with --port"
    ]
    assert "dashboard on" not in done.stdout and "playing the" not in done.stdout
    assert not (data / "ladder-pagat.log").exists()  # never started
    assert processes_of(data) == []


def _get(url: str, wait_s: float = 30.0) -> str:
    deadline = time.monotonic() + wait_s
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5) as reply:
                return reply.read().decode()
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
