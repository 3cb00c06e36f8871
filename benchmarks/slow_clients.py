"""A normal page's latency while slow clients trickle their requests, as served for real.

Starts ``arena dashboard`` on a free loopback port and a fresh SQLite file, fetches the
tournaments page ``--requests`` times alone, then again while ``--slow`` connections send
their headers and ``--slow`` more their ``/login`` body a byte every second (each opened at
once, all from this process), and prints p50/p95 for both. Then the same for the server it
replaced (gunicorn, 2 workers of 4 threads, as ``arena dashboard`` ran it), when gunicorn is
installed. A request not answered within ``--timeout`` seconds counts as that long.
Target: p95 < 1 s with the slow clients.

Run: python benchmarks/slow_clients.py [--slow 50] [--requests 50] [--timeout 5]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import secrets
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import numpy as np

PAGE = "/tournaments/"
HEADERS = b"GET / HTTP/1.1\r\nHost: arena\r\n"
BODY = b"POST /login HTTP/1.1\r\nHost: arena\r\nContent-Length: 100000\r\n\r\nname="
SERVERS = {
    "arena dashboard": [sys.executable, "-m", "arena", "dashboard", "--port", "{port}"],
    "gunicorn 2x4 (old)": [
        *(sys.executable, "-m", "gunicorn", "-w", "2", "--threads", "4"),
        *("-b", "127.0.0.1:{port}", "dashboard:create_app()"),
    ],
}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def server(command: list[str], tmp: Path) -> Iterator[str]:
    """The base URL of ``command`` serving a fresh SQLite database until the block ends."""
    port = free_port()
    env = dict(
        os.environ,
        ARENA_DATABASE_URL=f"sqlite:///{tmp / f'{port}.db'}",
        ARENA_DATA_DIR=str(tmp / f"data-{port}"),
        ARENA_SECRET_KEY=secrets.token_urlsafe(32),
    )
    cmd = [word.format(port=port) for word in command]
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    subprocess.run([sys.executable, "-m", "arena", "db", "upgrade"], env=env, check=True, **quiet)
    proc = subprocess.Popen(cmd, env=env, **quiet)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(150):
            with suppress(OSError):
                urllib.request.urlopen(base + PAGE, timeout=1).read()
                break
            time.sleep(0.2)
        yield base
    finally:
        proc.terminate()
        proc.wait(20)


@contextmanager
def slow_clients(base: str, count: int) -> Iterator[list[socket.socket]]:
    """``count`` connections trickling headers and ``count`` trickling a body, 1 byte/s."""
    port = int(base.rpartition(":")[2])
    socks = []
    for start in (HEADERS, BODY):
        for _ in range(count):
            sock = socket.create_connection(("127.0.0.1", port))
            sock.sendall(start)
            socks.append(sock)
    stop = threading.Event()

    def trickle() -> None:
        while not stop.wait(1.0):
            for sock in socks:
                with suppress(OSError):
                    sock.send(b"a")

    thread = threading.Thread(target=trickle, daemon=True)
    thread.start()
    try:
        yield socks
    finally:
        stop.set()
        thread.join()
        for sock in socks:
            sock.close()


def latencies_ms(url: str, requests: int, timeout_s: float) -> tuple[np.ndarray, int]:
    """Each request's time (a failed one counts ``timeout_s``), and how many failed."""
    times, failed = [], 0
    for _ in range(requests):
        t0 = time.perf_counter()
        try:
            with urllib.request.urlopen(url, timeout=timeout_s) as reply:
                reply.read()
            times.append(time.perf_counter() - t0)
        except OSError:
            times.append(timeout_s)
            failed += 1
    return np.array(times) * 1000, failed


def row(name: str, times: np.ndarray, failed: int) -> None:
    p50, p95 = np.percentile(times, [50, 95])
    print(f"{name:<44} {p50:>8.1f} {p95:>8.1f} {failed:>7}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--slow", type=int, default=50, help="slow-header and slow-body each")
    parser.add_argument("--requests", type=int, default=50)
    parser.add_argument("--timeout", type=float, default=5.0)
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"{'server, clients':<44} {'p50 ms':>8} {'p95 ms':>8} {'failed':>7}")
    have_gunicorn = importlib.util.find_spec("gunicorn") is not None
    with tempfile.TemporaryDirectory() as tmp:
        for name, command in SERVERS.items():
            if "gunicorn" in command and not have_gunicorn:
                print(f"{name:<44} (gunicorn is not installed)")
                continue
            with server(command, Path(tmp)) as base:
                row(f"{name}, alone", *latencies_ms(base + PAGE, args.requests, args.timeout))
                with slow_clients(base, args.slow):
                    measured = latencies_ms(base + PAGE, args.requests, args.timeout)
                row(f"{name}, {2 * args.slow} slow clients", *measured)
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
