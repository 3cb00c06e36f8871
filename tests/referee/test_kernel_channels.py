"""Fair play on a shared kernel, written as the attacks: real hostile bot packages
in the real bwrap sandbox, through the real referee, judged by the bot's own report.

- ``kernel_memory`` stores its game-1 hand as kernel keys and as page-cache state (of its
  own package's file and of a file of the shared Python runtime) and reads them back in games
  2-4; it also looks for a key the operator's session holds.
- ``lock_partner`` (two entrants at one table) publishes its hand as POSIX record locks on
  the platform's Python binary, and reads its partner's with F_GETLK.
- ``cpu_hog`` forks 100 busy processes, each in a session of its own, next to
  ``cpu_counter`` (an honest bot that works 20 ms per decision): on the counter's turns the
  hog holds the least weight and a small quota, and its record counts its spinners' CPU.
  How much work the honest bot keeps is measured by benchmarks/cpu_share.py, not here.

Each has a control: the same bot with the defences removed (``close_channels=False``: the
seccomp filter reduced to what it was before, no fresh session keyring, the original bot
folder bound instead of a copy, no eviction) carries the hands, so the tests above it would
catch a defence that stopped working.

- ``cache_timing`` is the page-cache attack that needs none of the refused calls: it sets
  bits by reading pages of big shared files under /usr/lib and tests them in later games by
  whether touching a page faults. The eviction of what a bot cached, at its stop, erases
  them (benchmarks/cache_channel.py measures the channel).
"""

from __future__ import annotations

import ctypes
import dataclasses
import os
import re
import secrets
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.bots.package import load_package
from arena.bots.process_player import ProcessPlayer
from arena.game.cards import CARDS
from arena.house.names import house_player
from arena.referee import Clock, MatchSpec, play_match, secret_seed
from arena.sandbox import SandboxPolicy, cgroups, procfs, spawner
from tests.referee.conftest import (
    FAST_CLOCK,
    GAMES,
    HOSTILE_BOTS,
    RULES,
    copy_bot_dir,
    live_pids,
    sandbox_leftovers,
)
from tests.support import need

pytestmark = pytest.mark.slow

SECRET = "arena-operator-secret"
SLOW_CLOCK = Clock(decision_ms=5000, bank_ms=30_000, startup_ms=15_000)  # disk reads
PAGES = 64  # pad.bin: one page per card, and some


@pytest.fixture
def unsafe_policy(sandbox_policy: SandboxPolicy) -> SandboxPolicy:
    """The sandbox without its kernel-channel defences (``close_channels=False``): a filter against
    user namespaces only, the platform's session keyring inherited, the bot's folder bound
    as it is, the pages it cached left in the cache."""
    return dataclasses.replace(sandbox_policy, close_channels=False)


@pytest.fixture
def operator_key() -> Iterator[None]:
    """A key in the session keyring the platform forks its bots with, as a login session's
    keyring may hold one: the thread that forks bots (arena.sandbox.spawner) joins a
    session keyring of its own and adds the key there."""
    libc = ctypes.CDLL(None, use_errno=True)
    secret = f"{SECRET}-{os.getpid()}".encode()

    def add() -> int:
        libc.syscall(250, 1, None)  # KEYCTL_JOIN_SESSION_KEYRING: a new anonymous one
        return libc.syscall(248, b"user", secret, b"hunter2", 7, -3)  # KEY_SPEC_SESSION

    key = spawner._spawn(add)
    need(key >= 0, f"this host refuses add_key (errno {ctypes.get_errno()})")
    yield
    libc.syscall(250, 21, key)  # KEYCTL_INVALIDATE


@pytest.fixture(autouse=True)
def no_keys_of_other_runs() -> Iterator[None]:
    """Revoke the bot's keys (world-writable, as it makes them) before and after each test:
    a control's keys must not reach the next test."""
    libc = ctypes.CDLL(None, use_errno=True)

    def revoke() -> None:
        for line in Path("/proc/keys").read_text().splitlines():
            if "callbreak-memory:" in line:
                libc.syscall(250, 21, int(line.split()[0], 16))  # KEYCTL_INVALIDATE

    revoke()
    yield
    revoke()


def kernel_memory_bot(tmp_path: Path) -> Path:
    bot = copy_bot_dir(HOSTILE_BOTS / "kernel_memory", tmp_path / "bots")
    with open(bot / "pad.bin", "wb") as f:  # written back, so that its pages can be dropped
        f.write(b"\0" * PAGES * 4096)
        f.flush()
        os.fsync(f.fileno())
    (bot / "pad.bin").chmod(0o644)
    return bot


def play(
    bot_dirs: list[Path], tmp_path: Path, policy, clock: Clock = FAST_CLOCK
) -> tuple[dict, list[str], list[str]]:
    """A match of the bots in ``bot_dirs`` (entrants 0..) and house bots: (record, each
    process bot's log, leftover processes)."""
    players = [
        ProcessPlayer(load_package(d), f"bot{i}", policy=policy, log_dir=tmp_path / f"logs{i}")
        for i, d in enumerate(bot_dirs)
    ]
    houses = [house_player("random", s, f"house:{s}") for s in range(len(bot_dirs), 4)]
    seed = secret_seed()  # each test its own deals: no test can pass on another's leftovers
    spec = MatchSpec("channels", rules=RULES, seed=seed, games=GAMES, clock=clock)
    before = live_pids()
    try:
        result = play_match(spec, [*players, *houses])
    finally:
        for player in players:
            player.close()
    logs = [p.log_path.read_text(errors="replace") for p in players]
    leftovers = [x for d in bot_dirs for x in sandbox_leftovers(d, before)]
    assert result.faults == [], result.faults
    return result.record, logs, leftovers


def hand_of(record: dict, game: int, deal: int, entrant: int) -> list[str]:
    played = record["games"][game]
    return played["deals"][deal]["hands"][played["seats"].index(entrant)].split()


def carries(hands: list[list[str]], hand: list[str]) -> bool:
    """Whether one of ``hands`` holds all of ``hand`` (a page or three that another
    process cached meanwhile may add cards to what a cache channel reads)."""
    return any(set(hand) <= set(found) for found in hands)


def remembered(log: str) -> dict[tuple[int, str], list[list[str]]]:
    """(game, channel) -> the hands the bot found there, each sorted."""
    found: dict[tuple[int, str], list[list[str]]] = {}
    for g, channel, cards in re.findall(r"^REMEMBERED game (\d+) via (\S+): (.*)$", log, re.M):
        found.setdefault((int(g), channel), []).append(sorted(cards.split()))
    return found


# --------------------------------------------------------------------------- across games


def test_kernel_memory_bot_carries_nothing_into_later_games(
    tmp_path: Path, sandbox_policy, operator_key
) -> None:
    record, [log], leftovers = play([kernel_memory_bot(tmp_path)], tmp_path, sandbox_policy)
    assert leftovers == []
    first_hand = sorted(hand_of(record, 0, 0, 0))
    found = remembered(log)
    assert not any(carries(hands, first_hand) for hands in found.values()), log[-3000:]
    assert not any(channel.startswith("cache") for _, channel in found), log[-3000:]
    for channel in ("keys", "cache:own", "cache:shared"):  # it tried, in every later game
        tried = re.findall(rf"^(?:REMEMBERED|NOTHING) game (\d+) via {channel}: ", log, re.M)
        assert sorted(set(map(int, tried))) == list(range(1, GAMES)), log[-3000:]
    assert re.search(r"^WROTE game 0 via keys: EPERM$", log, re.M), log
    assert re.search(r"^WROTE game 0 via cache:shared: ENOSYS$", log, re.M), log  # fadvise
    assert "preadv2(RWF_NOWAIT) ENOTSUP, mincore ENOSYS" in log
    assert "OPERATOR KEY SEEN" not in log


def test_control_kernel_memory_bot_remembers_without_the_defences(
    tmp_path: Path, unsafe_policy, operator_key
) -> None:
    # Each channel carries the hand (a control: one later game proves it open). Not every
    # game, and up to three matches: bots of other platforms on this host (a benchmark, a
    # worker) evict pages their own cgroups were charged for, ours among them.
    for attempt in range(3):
        run = tmp_path / f"attempt-{attempt}"
        record, [log], _ = play([kernel_memory_bot(run)], run, unsafe_policy)
        first_hand = sorted(hand_of(record, 0, 0, 0))
        found = remembered(log)
        missing = [
            channel
            for channel in ("keys", "cache:own", "cache:shared")
            if not any(carries(found.get((g, channel), []), first_hand) for g in range(1, GAMES))
        ]
        if not missing:
            break
    assert not missing, (missing, log)
    assert all(carries(found.get((g, "keys"), []), first_hand) for g in range(1, GAMES)), log
    assert re.search(r"^OPERATOR KEY SEEN game 1: .*arena-operator-secret", log, re.M), log


def channel_reads(log: str) -> list[str]:
    """The 52-bit masks (0/1, ? unreadable) the timing bot read in each later game."""
    return re.findall(r"^CHANNEL game \d+: \d+ / 52 readable: ([01?]+) in", log, re.M)


def mask_of_hand(record: dict) -> str:
    hand = set(hand_of(record, 0, 0, 0))
    return "".join("1" if str(card) in hand else "0" for card in CARDS)


def test_first_read_faults_on_shared_files_carry_nothing_into_later_games(
    tmp_path: Path, sandbox_policy
) -> None:
    need(cgroups.hierarchies(sandbox_policy) is not None, "eviction needs a memory cgroup")
    bot = copy_bot_dir(HOSTILE_BOTS / "cache_timing", tmp_path / "bots")
    (bot / "region.txt").write_text(str(secrets.randbelow(10_000)))
    (bot / "region.txt").chmod(0o644)
    record, [log], leftovers = play([bot], tmp_path, sandbox_policy, SLOW_CLOCK)
    assert leftovers == []
    truth, reads = mask_of_hand(record), channel_reads(log)
    assert len(reads) == GAMES - 1, log[-2000:]
    right = sum(m == t for mask in reads for m, t in zip(mask, truth, strict=True))
    assert right <= len(truth), (reads, truth)  # chance: some pages others cached meanwhile


def test_control_first_read_faults_carry_the_hand_without_eviction(
    tmp_path: Path, unsafe_policy
) -> None:
    # Without eviction every such run leaves its pages cached for good: start from a cold
    # page cache, as a fresh host is, or a region used before reads as noise.
    need(os.geteuid() == 0, "dropping the page cache needs root")
    Path("/proc/sys/vm/drop_caches").write_text("1")
    bot = copy_bot_dir(HOSTILE_BOTS / "cache_timing", tmp_path / "bots")
    (bot / "region.txt").write_text(str(secrets.randbelow(10_000)))
    (bot / "region.txt").chmod(0o644)
    record, [log], _ = play([bot], tmp_path, unsafe_policy, SLOW_CLOCK)
    truth, reads = mask_of_hand(record), channel_reads(log)
    assert len(reads) == GAMES - 1, log[-2000:]
    for mask in reads:  # nearly every bit readable, and every readable bit right
        known = [(m, t) for m, t in zip(mask, truth, strict=True) if m != "?"]
        assert len(known) >= 40 and all(m == t for m, t in known), (mask, truth)


# --------------------------------------------------------------------------- at one table


def partner_reports(log: str) -> dict[tuple[int, int], list[str]]:
    """(game, deal) -> the partner's hand the bot read."""
    found = re.findall(r"^PARTNER game (\d+) deal (\d+): (.*)$", log, re.M)
    return {(int(g), int(d)): cards.split() for g, d, cards in found}


def lock_pair(tmp_path: Path) -> list[Path]:
    return [copy_bot_dir(HOSTILE_BOTS / "lock_partner", tmp_path / f"pair{i}") for i in range(2)]


def test_lock_partners_cannot_publish_their_hands(tmp_path: Path, sandbox_policy) -> None:
    _, logs, leftovers = play(lock_pair(tmp_path), tmp_path, sandbox_policy)
    assert leftovers == []
    for log in logs:
        assert partner_reports(log) == {}, log[-2000:]
        assert re.search(r"^PUBLISH game 0 deal 0: ENOLCK$", log, re.M), log[-2000:]


def test_control_lock_partners_read_each_others_hands_without_the_filter(
    tmp_path: Path, unsafe_policy
) -> None:
    record, logs, _ = play(lock_pair(tmp_path), tmp_path, unsafe_policy)
    for me, log in enumerate(logs):
        reports = partner_reports(log)
        assert reports, log[-2000:]
        for (game, deal), cards in reports.items():
            assert sorted(cards) == sorted(hand_of(record, game, deal, 1 - me)), log[-2000:]
        assert len(reports) >= GAMES * RULES.deals_per_game // 2  # most deals, not a fluke


# --------------------------------------------------------------------------- the CPU


class Watched:
    """The cpu group settings of the hog and of the counter, and who is in the hog's groups,
    as seen on each of the counter's turns (taken once the counter's turn began, before its
    request is sent)."""

    def __init__(self, policy: SandboxPolicy) -> None:
        self.where = cgroups.hierarchies(policy)
        assert self.where is not None and self.where.cpu is not None
        self.parent = policy.cgroup_parent
        self.turns: list[dict] = []

    def group(self, root: Path, uid: int) -> Path:
        return root / self.parent / f"uid-{uid}"

    def cpu_settings(self, uid: int) -> tuple[str, str]:
        """(quota per period, weight) as the kernel holds them."""
        group = self.group(self.where.cpu, uid)
        names = ("cpu.max", "cpu.weight")
        if self.where.version == "cgroup1":
            names = ("cpu.cfs_quota_us", "cpu.shares")
        return tuple((group / name).read_text().split()[0] for name in names)

    def look(self, hog: ProcessPlayer, counter: ProcessPlayer) -> None:
        hog_uid, counter_uid = hog._proc.uid, counter._proc.uid
        roots = cgroups._roots(self.where)
        members = [
            {int(p) for p in (self.group(r, hog_uid) / "cgroup.procs").read_text().split()}
            for r in roots
        ]
        self.turns.append(
            {
                "hog": self.cpu_settings(hog_uid),
                "counter": self.cpu_settings(counter_uid),
                "hog processes": set(procfs._pids_of_uid(hog_uid)),
                "hog groups": members,
                "sessions": {_session(p) for p in members[0]} - {None},
            }
        )


def _session(pid: int) -> int | None:
    """The session id of a process (None once gone)."""
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[3])
    except (OSError, IndexError, ValueError):
        return None


class WatchingCounter(ProcessPlayer):
    """The counter bot, looking at the hog's groups on each of its turns."""

    def __init__(self, *args, hog: ProcessPlayer, watched: Watched, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.hog, self.watched = hog, watched

    def start(self, info, timeout_s: float) -> None:
        super().start(info, timeout_s)
        conn, player = self._conn, self

        class Look:
            def __getattr__(self, name: str):
                return getattr(conn, name)

            def decide(self, request, timeout_s: float):
                player.watched.look(player.hog, player)  # its turn: set_turn(True) is done
                return conn.decide(request, timeout_s)

        self._conn = Look()


def test_a_bot_forking_busy_processes_waits_on_a_small_quota_and_pays_for_its_spinners(
    tmp_path: Path, sandbox_policy
) -> None:
    """While the counter decides, the hog (its 100 spinners each in a session of its own,
    all in its groups) holds the least weight and the waiting quota, and the record charges
    it the CPU its spinners used. Only settings and counts are asserted, no timing: the
    counter's share of the CPU, which the settings keep, is benchmarks/cpu_share.py's."""
    where = cgroups.hierarchies(sandbox_policy)
    need(where is not None and where.cpu is not None, "needs root and a cpu cgroup controller")
    hog_dir, counter_dir = (
        copy_bot_dir(HOSTILE_BOTS / name, tmp_path / "bots") for name in ("cpu_hog", "cpu_counter")
    )
    # A clock the hog can keep while its own spinners share its core (its price, not ours).
    clock = Clock(decision_ms=2000, bank_ms=20_000, startup_ms=10_000)
    watched = Watched(sandbox_policy)
    hog = ProcessPlayer(load_package(hog_dir), "hog", policy=sandbox_policy, log_dir=tmp_path / "h")
    counter = WatchingCounter(
        load_package(counter_dir),
        "counter",
        policy=sandbox_policy,
        log_dir=tmp_path / "c",
        hog=hog,
        watched=watched,
    )
    houses = [house_player("random", s, f"house:{s}") for s in (2, 3)]
    spec = MatchSpec("cpu", rules=RULES, seed=secret_seed(), games=GAMES, clock=clock)
    before = live_pids()
    started = time.monotonic()
    try:
        result = play_match(spec, [hog, counter, *houses])
    finally:
        hog.close()
        counter.close()
    wall = time.monotonic() - started
    assert result.faults == [], result.faults
    assert sandbox_leftovers(hog_dir, before) == []  # the spinners, all gone with the sandbox
    hog_log, counter_log = (p.log_path.read_text(errors="replace") for p in (hog, counter))
    forked = [int(n) for n in re.findall(r"^FORKED (\d+) spinners", hog_log, re.M)]
    assert forked == [100] * GAMES, hog_log[-1000:]
    decisions = GAMES * RULES.deals_per_game * 14
    assert len(re.findall(r"^WORK \d+$", counter_log, re.M)) == decisions
    assert len(watched.turns) == decisions
    waiting = (str(cgroups.WAITING_QUOTA_US), "2" if where.version == "cgroup1" else "1")
    deciding = ("100000", "1024" if where.version == "cgroup1" else "100")
    for turn in watched.turns:
        assert turn["hog"] == waiting and turn["counter"] == deciding, turn
        # every process of the hog's uid is in each of its groups, spinners included
        assert len(turn["hog processes"]) >= 101, turn
        assert all(turn["hog processes"] <= group for group in turn["hog groups"]), turn
        assert len(turn["sessions"]) >= 101  # its own, and one per spinner
    # The record charges the hog what its spinners burnt (the cpu group's counter): much
    # more than the counter's 20 ms a decision; and no more than its one core.
    hog_cpu, counter_cpu = (
        sum(game["cpu_ms"][game["seats"].index(entrant)] for game in result.record["games"]) / 1000
        for entrant in (0, 1)
    )
    assert hog_cpu >= 2 * counter_cpu, (hog_cpu, counter_cpu)
    assert hog_cpu <= 1.1 * wall + 0.2, (hog_cpu, wall)  # one core: Limits.cpu_cores
