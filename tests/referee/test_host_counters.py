"""Fair play on a shared kernel, host-wide counters: the ``vmstat_memory`` bot writes its
game-1 hand into /proc/vmstat event counters that never reset (``pglazyfree``,
``numa_interleave``, ``nr_foll_pin_acquired``, and ``unevictable_pgs_mlocked``, which a call
no filter refuses moves) and reads them back in games 2-4, as the fresh bot of a later
rotation of the same deals. With the defences its /proc/vmstat is empty and the calls that
move the first three are refused; the control (``close_channels=False``) shows the hand
coming back through the real referee."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from arena.referee import Clock
from arena.sandbox import SandboxPolicy
from tests.referee.conftest import GAMES, HOSTILE_BOTS, copy_bot_dir
from tests.referee.test_kernel_channels import hand_of, play

pytestmark = pytest.mark.slow

# Game 1's writes wait for the per-CPU counts to be folded in (about a second a move).
CLOCK = Clock(decision_ms=30_000, bank_ms=60_000, startup_ms=20_000)


def vmstat_bot(tmp_path: Path) -> Path:
    return copy_bot_dir(HOSTILE_BOTS / "vmstat_memory", tmp_path / "bots")


def remembered(log: str) -> dict[int, list[str]]:
    """Game -> the hand the bot decoded from the counters, sorted."""
    found = re.findall(r"^REMEMBERED game (\d+) via counters: (.*)$", log, re.M)
    return {int(g): sorted(cards.split()) for g, cards in found}


def test_vmstat_bot_carries_nothing_into_later_games(tmp_path: Path, sandbox_policy) -> None:
    _, [log], leftovers = play([vmstat_bot(tmp_path)], tmp_path, sandbox_policy, CLOCK)
    assert leftovers == []
    assert remembered(log) == {}, log[-3000:]
    for channel, why in [
        ("lazyfree", "EINVAL"),  # madvise(MADV_FREE)
        ("interleave", "ENOSYS"),  # set_mempolicy
        ("pin", "ENOSYS"),  # process_vm_readv
        ("mlock", "no unevictable_pgs_mlocked in /proc/vmstat"),  # allowed, but unreadable
    ]:
        assert re.search(rf"^WROTE game 0 via {channel}: {why}$", log, re.M), log[-3000:]
    for game in range(1, GAMES):  # it tried in every later game and read nothing
        assert f"NOTHING game {game} via counters: /proc/vmstat shows no" in log, log[-3000:]
        assert len(re.findall(rf"^READ game {game} via \S+: unreadable$", log, re.M)) == 4


def test_control_vmstat_bot_remembers_without_the_defences(
    tmp_path: Path, sandbox_policy: SandboxPolicy
) -> None:
    # Up to three matches: another process on this host that moves one of the counters
    # between the games (a test run's Node bot giving memory back, a direct read) spoils it,
    # and on a busy host a few bits of a hand: 11 of its 13 cards right is carried (a hand
    # guessed from the 39 cards the bot does not hold shares about 3 with it).
    unsafe = dataclasses.replace(sandbox_policy, close_channels=False)
    for attempt in range(3):
        run = tmp_path / f"attempt-{attempt}"
        record, [log], _ = play([vmstat_bot(run)], run, unsafe, CLOCK)
        first_hand = set(hand_of(record, 0, 0, 0))
        right = max((len(first_hand & set(hand)) for hand in remembered(log).values()), default=0)
        if right >= 11:
            break
    assert right >= 11, (sorted(first_hand), log[-3000:])
    # the calls the defences refuse wrote (on a loaded host one may run out of its own time)
    wrote = [c for c in ("lazyfree", "interleave", "pin") if f"WROTE game 0 via {c}: ok" in log]
    assert len(wrote) >= 2, log[-3000:]
