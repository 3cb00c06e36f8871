"""ProcessPlayer restarts: every start() after close() is a fresh sandbox, and the seat keeps
one log that each run appends to (the referee starts a fresh process per game)."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from pathlib import Path

import pytest

from arena.bots.package import load_package
from arena.bots.process_player import ProcessPlayer
from arena.game import PAGAT
from arena.players.player import BotDied, MatchInfo
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


def _frozen_start(player: ProcessPlayer, info: MatchInfo, allowance_s: float, freeze_s: float):
    """Start ``player`` while its sandbox gets no CPU at all for ``freeze_s`` (every process
    stopped as soon as it exists): the worst a saturated host can do to a start-up."""
    outcome: list[BaseException | None] = []

    def start() -> None:
        try:
            player.start(info, allowance_s)
            outcome.append(None)
        except BaseException as exc:
            outcome.append(exc)

    thread = threading.Thread(target=start)
    thread.start()
    frozen: set[int] = set()
    until = time.monotonic() + freeze_s
    while time.monotonic() < until and thread.is_alive():
        proc = player._proc
        for pid in [] if proc is None else proc._members():
            if pid not in frozen:
                os.kill(pid, signal.SIGSTOP)
                frozen.add(pid)
        time.sleep(0.002)
    for pid in frozen:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGCONT)
    thread.join(timeout=120)
    return frozen, outcome


def test_a_start_up_starved_of_cpu_is_not_charged_to_the_bot(tmp_path: Path) -> None:
    """Host load decided start-ups (five seats forfeited at load 47): the allowance is the
    bot's own CPU time, so a bot that got no CPU past the allowance's wall time still starts."""
    need_sandbox(POLICY)
    bot = copy_bot_dir(SAMPLE_BOTS / "random", tmp_path / "bots")
    player = ProcessPlayer(load_package(bot), "seat0", policy=POLICY, log_dir=tmp_path / "logs")
    info = MatchInfo("opaque-id", PAGAT, 1000, 1000)
    allowance = 1.5
    frozen, outcome = _frozen_start(player, info, allowance, freeze_s=allowance * 2)
    try:
        assert frozen, "the bot's processes were never seen, so never starved"
        assert outcome == [None], outcome  # started, not "did not open its socket in time"
    finally:
        player.close()


def test_a_start_up_that_burns_its_cpu_allowance_is_charged(tmp_path: Path) -> None:
    need_sandbox(POLICY)
    bot = copy_bot_dir(SAMPLE_BOTS / "random", tmp_path / "bots")
    spin = (
        "import time\nend = time.process_time() + 30\nwhile time.process_time() < end:\n    pass\n"
    )
    (bot / "bot.py").write_text(spin + (bot / "bot.py").read_text())
    player = ProcessPlayer(load_package(bot), "seat0", policy=POLICY, log_dir=tmp_path / "logs")
    try:
        with pytest.raises(BotDied, match=r"socket in time \(\d+\.\d s of CPU used, the start-up"):
            player.start(MatchInfo("opaque-id", PAGAT, 1000, 1000), 1.0)
    finally:
        player.close()
