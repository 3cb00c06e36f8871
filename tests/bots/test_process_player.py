"""ProcessPlayer restarts: every start() after close() is a fresh sandbox, and the seat keeps
one log that each run appends to (the referee starts a fresh process per game)."""

from __future__ import annotations

from pathlib import Path

from arena.bots.package import load_package
from arena.bots.player import MatchInfo
from arena.bots.process_player import ProcessPlayer
from arena.game import PAGAT
from tests.referee.conftest import POLICY, copy_bot_dir
from tests.support import SAMPLE_BOTS, need_sandbox

ANNOUNCE = 'import os, sys\nprint(f"run in pid {os.getpid()}", file=sys.stderr, flush=True)\n'


def test_start_after_close_is_a_fresh_sandbox_appending_to_the_log(tmp_path: Path) -> None:
    need_sandbox(POLICY)
    bot = copy_bot_dir(SAMPLE_BOTS / "random", tmp_path / "bots")
    (bot / "bot.py").write_text(ANNOUNCE + (bot / "bot.py").read_text())
    player = ProcessPlayer(load_package(bot), "seat0", policy=POLICY, log_dir=tmp_path / "logs")
    info = MatchInfo("opaque-id", PAGAT, 1000, 1000)
    runs = []
    for _ in range(3):
        player.start(info, 10)
        runs.append(player._proc)
        player.close()
    assert len({run.pid for run in runs}) == 3 and not any(run.alive() for run in runs)
    lines = player.log_path.read_text().splitlines()
    started = [line for line in lines if line.startswith("run in pid")]
    assert len(started) == 3  # one log for the seat, appended by every run
    assert player.log_path == tmp_path / "logs" / "seat0.log"
