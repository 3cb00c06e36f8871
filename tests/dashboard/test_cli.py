"""``arena dashboard`` serves the CLI's database (waitress)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request


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
