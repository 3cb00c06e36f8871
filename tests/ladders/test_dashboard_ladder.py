"""``arena dashboard --play-ladder``: a platform without workers still plays its ladder, in
a background ``arena ladder run`` that stops with the dashboard and gives its match back."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

from arena.runtime import Runtime
from arena.store import Database
from tests.ladders.test_ladder_run import open_pagat, statuses
from tests.services.conftest import sample_copy, valid_bot
from tests.submissions.live import platform_env
from tests.support import arena_command, free_port

WAIT_S = 120.0  # for the first ladder match on a loaded 2-core machine


def test_the_dashboard_plays_the_ladder_until_it_stops(
    db: Database, runtime: Runtime, tmp_path: Path
) -> None:
    tid = open_pagat(db, deals=1, games=1, placement_matches=2)
    valid_bot(db, runtime, sample_copy(tmp_path / "solo", "solo"))
    log = tmp_path / "dashboard.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [*arena_command(), "dashboard", "--port", str(free_port()), "--play-ladder"],
            env=platform_env(db, tmp_path / "data"),
            cwd=tmp_path,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + WAIT_S
        ladder_log = tmp_path / "data" / "ladder-pagat.log"
        # recorded, and said by the run (which prints it once the match's work is over)
        while statuses(db, tid).get("done", 0) < 1 or "match 1: done" not in _text(ladder_log):
            assert proc.poll() is None, log.read_text()
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.5)
    finally:
        os.kill(proc.pid, signal.SIGINT)  # Ctrl-C: the dashboard stops its ladder run
        proc.wait(60)
    said = log.read_text()
    assert "playing the pagat ladder here" in said, said
    said_by_run = ladder_log.read_text()
    assert "stopped: matches under way were given back" in said_by_run, said_by_run

    left = statuses(db, tid)
    assert left.get("running", 0) == 0, left  # nothing left claimed by a dead run
    assert not processes_of(tmp_path / "data"), "the ladder run outlived the dashboard"


def _text(path: Path) -> str:
    return path.read_text(errors="replace") if path.exists() else ""


def processes_of(data_dir: Path) -> list[int]:
    """Processes whose environment names this platform's data dir."""
    mark = f"ARENA_DATA_DIR={data_dir}".encode()
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and mark in (proc / "environ").read_bytes().split(b"\0"):
                found.append(int(proc.name))
        except OSError:
            continue  # gone, or not ours to read
    return found
