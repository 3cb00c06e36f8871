"""Fixtures for matches against real sandboxed bot processes.

``run_match(bot)`` plays a full match (4 games of 2 deals) through the real referee with the
bot package ``bot`` (a folder name under ``tests/hostile_bots/`` or a path) as entrant 0 in
a bwrap sandbox, against three in-process house bots, and returns a :class:`MatchRun`: the
result, the bot's log, and the processes the match left behind. ``copy_bot(name)`` copies a
hostile bot into the test's tmp_path so that the test can add files to it; ``open_area`` is
a scratch directory any uid could enter, for files only the sandbox may keep a bot from.

The sandbox tests need a working bwrap: skipped locally without one, failed under CI=true.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from arena.bots.package import load_package
from arena.bots.process_player import ProcessPlayer
from arena.game import BHOOS, PAGAT, Ruleset, validate_record
from arena.house.names import house_player
from arena.players.player import Player
from arena.referee import Clock, MatchSpec, play_match
from arena.referee.result import Fault, MatchResult
from arena.sandbox import SandboxPolicy
from arena.sandbox.limits import DEFAULT_LIMITS, Limits
from tests.support import HOSTILE_BOTS, POLICY

RULES = PAGAT.with_(deals_per_game=2)
BHOOS_RULES = BHOOS.with_(deals_per_game=2)  # for bots of the Bhoos HTTP protocol
GAMES = 4
FAST_CLOCK = Clock(decision_ms=100, bank_ms=300, startup_ms=10_000)
NUL = b"\0"
LEASE_UIDS = range(POLICY.uid_base, POLICY.uid_base + POLICY.uid_count)  # 50000-50999


# --------------------------------------------------------------------------- processes


def _live_pids() -> dict[int, tuple[int | None, bytes]]:
    """Every live (non-zombie) process but this one: pid -> (real uid, cmdline)."""
    found = {}
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                state = f.read().rsplit(b")", 1)[1].split()[0]
            with open(f"/proc/{name}/status", "rb") as f:
                uid_line = next((line for line in f if line.startswith(b"Uid:")), b"")
            with open(f"/proc/{name}/cmdline", "rb") as f:
                cmdline = f.read()
        except (OSError, IndexError):
            continue
        if state in (b"Z", b"X"):
            continue
        uid = int(uid_line.split()[1]) if uid_line else None
        found[int(name)] = (uid, cmdline)
    return found


def _lease_holder(uid: int) -> int | None:
    """The platform process that holds the lease on a sandbox uid, from its lock file
    (written by ``arena.sandbox.uids._UidLease``: "in use by pid N" or "clean")."""
    try:
        text = (POLICY.uid_lock_dir / f"{uid}.lock").read_bytes()
    except OSError:
        return None
    found = re.match(rb"in use by pid (\d+)", text)
    return int(found[1]) if found else None


def sandbox_leftovers(marker: Path, before: Collection[int] = ()) -> list[str]:
    """Live processes that were not running ``before`` and either run under a sandbox uid
    (50000-50999) or have ``marker`` on their command line; described for an assertion.

    Other platform processes on this host (other test runs) may lease a sandbox uid while
    or right after this one used it, so processes of a uid whose lock file names another
    platform process (alive or killed) are theirs and skipped. A uid is marked clean only
    once its processes are gone, and a bot that outlives its stop keeps this process's
    lease: a leftover of ours is never skipped.
    """
    needle = str(marker).encode()
    found = []
    for pid, (uid, cmdline) in _live_pids().items():
        if pid in before:
            continue
        if uid in LEASE_UIDS:
            if _lease_holder(uid) not in (None, os.getpid()):
                continue
        elif needle not in cmdline:
            continue
        text = cmdline.replace(NUL, b" ").decode(errors="replace")[:200]
        found.append(f"pid {pid} uid {uid}: {text}")
    return found


def live_pids() -> set[int]:
    return set(_live_pids())


# --------------------------------------------------------------------------- the match


@dataclass
class MatchRun:
    """A finished match with a sandboxed bot as entrant 0."""

    result: MatchResult
    bot_dir: Path
    player: ProcessPlayer
    leftovers: list[str]

    @property
    def log(self) -> str:
        path = self.player.log_path
        return path.read_text(errors="replace") if path is not None and path.exists() else ""

    def faults(self, entrant: int = 0) -> list[Fault]:
        return [f for f in self.result.faults if f.entrant == entrant]

    def kinds(self, entrant: int = 0) -> list[str]:
        return [f.kind for f in self.faults(entrant)]

    def decision_faults(self) -> list[tuple[int, int, str]]:
        """(entrant, decision id, kind) of every decision the record marks with a fault."""
        return [
            (game["seats"][entry["seat"]], entry["id"], entry["fault"])
            for game in self.result.record["games"]
            for deal in game["deals"]
            for entry in deal["decisions"]
            if "fault" in entry
        ]

    def auto_decisions(self, entrant: int = 0) -> int:
        """Decisions the referee played for ``entrant`` after its forfeit."""
        return sum(
            1
            for game in self.result.record["games"]
            for deal in game["deals"]
            for entry in deal["decisions"]
            if entry.get("auto") and game["seats"][entry["seat"]] == entrant
        )

    def assert_completed_and_contained(self) -> None:
        """The match completed for everyone, its faults are recorded consistently (only
        against entrant 0), and the sandbox left no process behind."""
        result, record = self.result, self.result.record
        assert len(result.games) == GAMES
        assert all(g.deals == RULES.deals_per_game for g in result.games)
        assert validate_record(record) is None
        assert record["faults"] == [f.to_dict() for f in result.faults]
        assert record["forfeited"] == result.forfeited
        assert all(f.entrant == 0 for f in result.faults), result.faults
        assert result.forfeited[1:] == [False, False, False]
        struck = [
            (f.entrant, f.decision, f.kind)
            for f in result.faults
            if f.decision is not None and f.kind != "forfeit"
        ]
        assert self.decision_faults() == struck
        assert self.leftovers == []


def world_readable(root: Path) -> None:
    """Bots run under their own uid: their files must be readable by anyone."""
    root.chmod(0o755)
    for path in root.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)


def copy_bot_dir(source: Path, dest: Path) -> Path:
    """A world-readable copy of the bot folder ``source`` in ``dest``: whatever the umask of
    the checkout, the bot's own uid must be able to read its files, and the copy's path is
    unique, so no other process on the host has it on its command line."""
    target = dest / source.name
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
    world_readable(target)
    return target


@pytest.fixture
def copy_bot(tmp_path: Path) -> Callable[[str], Path]:
    """Copy a hostile bot into tmp_path (to add files to it); returns the copy."""
    return lambda name: copy_bot_dir(HOSTILE_BOTS / name, tmp_path / "bots")


@pytest.fixture
def open_area() -> Iterator[Path]:
    """A world-traversable scratch directory: pytest's tmp_path sits under a 0700 folder that
    a bot's uid could not enter even without a sandbox."""
    path = Path(tempfile.mkdtemp(prefix="arena-hostile-test-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def run_match(tmp_path: Path, sandbox_policy: SandboxPolicy) -> Iterator[Callable[..., MatchRun]]:
    """Play a match with ``bot`` (a folder name under tests/hostile_bots or the path of a
    bot package; copied into tmp_path unless it is there already) as entrant 0 against
    three house bots, under ``rules`` (two deals of pagat unless told)."""
    players: list[Player] = []

    def run(
        bot: str | Path,
        *,
        clock: Clock = FAST_CLOCK,
        limits: Limits = DEFAULT_LIMITS,
        max_strikes: int = 3,
        seed: int = 7,
        rules: Ruleset = RULES,
    ) -> MatchRun:
        bot_dir = HOSTILE_BOTS / bot if isinstance(bot, str) else Path(bot)
        if not bot_dir.resolve().is_relative_to(tmp_path.resolve()):
            bot_dir = copy_bot_dir(bot_dir, tmp_path / "bots")
        package = load_package(bot_dir)
        hostile = ProcessPlayer(
            package, "hostile", limits=limits, policy=sandbox_policy, log_dir=tmp_path / "logs"
        )
        players[:] = [hostile, *(house_player("random", s, "house:random") for s in (1, 2, 3))]
        spec = MatchSpec(
            f"match-{package.name}",
            rules=rules,
            seed=seed,
            games=GAMES,
            clock=clock,
            max_strikes=max_strikes,
        )
        before = live_pids()
        result = play_match(spec, players)
        return MatchRun(result, package.root, hostile, sandbox_leftovers(package.root, before))

    yield run
    for player in players:  # in case the match itself blew up
        player.close()
