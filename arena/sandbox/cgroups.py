"""A memory, a pids and a cpu cgroup per bot (as root): they count what rlimits cannot, i.e.
shared memory, tmpfs pages and kernel memory of the whole sandbox and every task it starts,
and they hold the whole sandbox to its CPU quota with the weight of one task, whatever the
number of processes (or of sessions: the kernel's autogroups apply in the root group only)
it starts; on its turn only, for a bot waiting for its turn gets a small quota. The cpu
group's own counter (v2 ``cpu.stat``, v1 ``cpuacct.usage``) is the bot's CPU time: it
counts every task that was ever in the group, also those that exited."""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import signal
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from arena.sandbox.limits import Limits

from .policy import SandboxPolicy
from .procfs import _KILL_TIMEOUT, _signal_pid

logger = logging.getLogger(__package__)  # the package's one logger, named as before the split

Control = Literal["cgroup2", "cgroup1", "rlimits"]
_NEEDED = ("memory", "pids")
_CPU = "cpu"  # wanted, not needed: without it a bot's CPU share is not held (logged)
_CPUACCT = "cpuacct"  # v1: the group's CPU time (without it, that of its live processes)
_REMOVE_TIMEOUT = 2.0
_PERIOD_US = 100_000
# Weights: a bot whose turn it is weighs what one ordinary task does; a bot waiting for its
# turn weighs the least the kernel allows, so that whatever it runs meanwhile (thinking ahead,
# or spinning to slow the others) only takes CPU time that the deciding bot leaves. All bots
# together weigh one ordinary task per core against the host's other work.
_V1_SHARES, _V2_WEIGHT = 1024, 100
_V1_WAITING, _V2_WAITING = 2, 1
# The quota of a bot waiting for its turn, per period: the least weight alone left a hog's
# hundred spinners the idle core beside the deciding bot, and the deciding bot lost up to
# half its work per decision to them (shared caches and the host's scheduling of the
# virtual cores: docs/sandbox.md, benchmarks/cpu_share.py). A tenth of a core is enough to
# take in the others' moves and think a little ahead.
WAITING_QUOTA_US = 10_000


def nice_weight(nice: int) -> float:
    """A task's CPU weight at ``nice`` against one at 0, as the kernel's scheduler has it
    (each step about 1.25 times: nice 10 weighs 0.107, nice 19 0.015)."""
    return 1.25 ** -max(-20, min(19, nice))


@dataclass(frozen=True)
class _Hierarchies:
    """Where the memory, pids and cpu controllers are mounted (one folder for v2)."""

    version: Literal["cgroup2", "cgroup1"]
    memory: Path
    pids: Path
    cpu: Path | None
    # v1 only, where cpuacct is mounted apart from cpu (with it, or v2: the cpu group counts)
    cpuacct: Path | None = None


def _mounts() -> list[tuple[str, str, set[str]]]:
    """(mount point, fs type, options) of every mount."""
    found = []
    with open("/proc/self/mounts") as f:
        for line in f:
            _dev, point, fstype, options, *_ = line.split()
            point = point.encode().decode("unicode_escape")  # \040 for a space...
            found.append((point, fstype, set(options.split(","))))
    return found


def _find_hierarchies() -> _Hierarchies | None:
    """cgroup v2 when its root offers both controllers, else v1 mounts of both, else None."""
    mounts = _mounts()
    for point, fstype, _ in mounts:
        if fstype == "cgroup2":
            with contextlib.suppress(OSError):
                controllers = (Path(point) / "cgroup.controllers").read_text().split()
                if all(c in controllers for c in _NEEDED):
                    cpu = Path(point) if _CPU in controllers else None
                    return _Hierarchies("cgroup2", Path(point), Path(point), cpu)
    wanted = {*_NEEDED, _CPU, _CPUACCT}
    v1 = {c: Path(p) for p, fstype, opts in mounts if fstype == "cgroup" for c in opts & wanted}
    if all(c in v1 for c in _NEEDED):
        cpu, cpuacct = v1.get(_CPU), v1.get(_CPUACCT)
        apart = cpuacct if cpuacct not in (None, cpu) else None
        return _Hierarchies("cgroup1", v1["memory"], v1["pids"], cpu, apart)
    return None


@functools.cache
def _detect(use: bool, euid: int) -> _Hierarchies | None:
    """The hierarchies bots get groups in (root only), logged once per process."""
    found = _find_hierarchies() if use and euid == 0 else None
    if found is not None:
        logger.info(
            "sandbox limits: %s memory+pids%s groups under %s",
            found.version,
            "+cpu" if found.cpu else "",
            ", ".join(str(p) for p in _roots(found)),
        )
        if found.cpu is None:
            logger.warning(
                "sandbox limits: no cpu controller: a bot's processes are not held to its "
                "CPU quota and weight, so one bot can slow its neighbours"
            )
    else:
        why = "disabled by the policy" if not use else "not root" if euid else "none mounted"
        logger.warning(
            "sandbox limits: rlimits only, no cgroup (%s): shared memory and tmpfs pages "
            "are not counted against the memory limit",
            why,
        )
    return found


def _roots(where: _Hierarchies) -> list[Path]:
    """The hierarchies a bot gets a group in, each once (v2: one)."""
    return list(dict.fromkeys(r for r in (where.memory, where.pids, where.cpu, where.cpuacct) if r))


def hierarchies(policy: SandboxPolicy) -> _Hierarchies | None:
    return _detect(policy.use_cgroups, os.geteuid())


def fair_play_gaps(policy: SandboxPolicy) -> list[str]:
    """What the cgroups on this host leave undone for fair play (empty: nothing), each as a
    line for an operator (docs/sandbox.md)."""
    where = hierarchies(policy)
    if where is None:
        return [
            "no memory cgroup per bot (run as root on a host with cgroups): memory is capped "
            "per process only, and what a bot caches is not evicted when it stops, so bots "
            "can pass bits from game to game through the page cache"
        ]
    if where.cpu is None:
        return ["no cpu cgroup controller: a bot's processes are not held to one core"]
    return []


class BotCgroup:
    """The groups of one bot, named after its leased uid (so the lease guards them too)."""

    def __init__(self, where: _Hierarchies, policy: SandboxPolicy, uid: int) -> None:
        self.version = where.version
        self._parents = [root / policy.cgroup_parent for root in _roots(where)]
        self.dirs = [parent / f"uid-{uid}" for parent in self._parents]
        self.controllers = [*_NEEDED, _CPU] if where.cpu else list(_NEEDED)
        self._evicts = policy.close_channels
        name = f"uid-{uid}"
        self._cpu = None if where.cpu is None else where.cpu / policy.cgroup_parent / name
        self._memory = where.memory / policy.cgroup_parent / name
        # the CPU counter: v2 the group's cpu.stat (there without the controller too)
        self._cpu_time: Path | None
        if where.version == "cgroup2":
            self._cpu_time = self._memory / "cpu.stat"
        else:
            counts = where.cpuacct or where.cpu  # v1: cpuacct apart, or mounted with cpu
            group = None if counts is None else counts / policy.cgroup_parent / name
            self._cpu_time = None if group is None else group / "cpuacct.usage"
        self._quota = _PERIOD_US  # the full quota, set by create()

    def create(self, limits: Limits) -> None:
        """Fresh groups with ``limits`` (removing what a killed platform left)."""
        if not self.remove():
            raise OSError(f"cannot remove the leftover cgroup {self.dirs}")
        for parent in self._parents:
            parent.mkdir(parents=True, exist_ok=True)
            if self.version == "cgroup2":
                _enable_controllers(parent, self.controllers)
            _write_present(parent, self._parent_settings())
        self._quota = limits.cpu_cores * _PERIOD_US
        for group in self.dirs:
            group.mkdir()
            _write_present(group, self._settings(limits))

    def _settings(self, limits: Limits) -> list[tuple[str, str]]:
        """(file, value) pairs in the order they must be written; missing files skipped."""
        memory, tasks = str(limits.memory_bytes), str(limits.max_processes)
        quota = str(limits.cpu_cores * _PERIOD_US)
        if self.version == "cgroup2":
            return [
                ("memory.max", memory),
                ("memory.swap.max", "0"),
                ("pids.max", tasks),
                ("cpu.max", f"{quota} {_PERIOD_US}"),
                ("cpu.weight", str(_V2_WEIGHT)),
            ]
        return [
            ("memory.limit_in_bytes", memory),
            ("memory.memsw.limit_in_bytes", memory),  # memory+swap: no swap at all
            ("memory.swappiness", "0"),
            ("pids.max", tasks),
            ("cpu.cfs_period_us", str(_PERIOD_US)),
            ("cpu.cfs_quota_us", quota),
            ("cpu.shares", str(_V1_SHARES)),
        ]

    def _parent_settings(self) -> list[tuple[str, str]]:
        """The weight of all bots together: one task of the referee's own niceness per core
        (``arena worker --nice``), so that bots yield to the web on a shared host as their
        referee does."""
        cores = os.cpu_count() or 1
        share = nice_weight(os.getpriority(os.PRIO_PROCESS, 0))
        if self.version == "cgroup2":
            return [("cpu.weight", str(max(1, min(10_000, round(_V2_WEIGHT * share * cores)))))]
        return [("cpu.shares", str(max(2, round(_V1_SHARES * share * cores))))]

    def set_turn(self, on_turn: bool) -> None:
        """Give the bot an ordinary task's CPU weight and its whole quota for its turn, the
        least weight and ``WAITING_QUOTA_US`` per period while it waits (a no-op without the
        cpu controller). The quota first on the turn, so that the bot never runs at full
        weight and the waiting quota, nor waits at the full quota with full weight. A group
        already removed is left alone."""
        if self._cpu is None:
            return
        quota = self._quota if on_turn else min(self._quota, WAITING_QUOTA_US)
        if self.version == "cgroup2":
            weight = _V2_WEIGHT if on_turn else _V2_WAITING
            settings = [("cpu.max", f"{quota} {_PERIOD_US}"), ("cpu.weight", str(weight))]
        else:
            weight = _V1_SHARES if on_turn else _V1_WAITING
            settings = [("cpu.cfs_quota_us", str(quota)), ("cpu.shares", str(weight))]
        with contextlib.suppress(FileNotFoundError):
            for name, value in settings if on_turn else reversed(settings):
                (self._cpu / name).write_text(value)

    def cpu_seconds(self) -> float | None:
        """CPU time of every task that was ever in the group, exited ones included (None
        without a counter, or once the group is gone)."""
        if self._cpu_time is None:
            return None
        try:
            if self.version == "cgroup2":
                usec = _counter(self._cpu_time, "usage_usec")
                return None if usec is None else usec / 1e6
            return int(self._cpu_time.read_text()) / 1e9
        except (OSError, ValueError):
            return None

    def _evict(self) -> None:
        """Reclaim every page charged to the bot: the file pages it was the first to read.

        Page-cache state outlives processes: a bot could read chosen pages of a big shared
        file (/usr) to leave bits that a later game's bot tests by whether touching a page
        faults (benchmarks/cache_channel.py). The pages a bot caused to be cached are
        exactly those charged to its memory group (the first reader pays), so emptying the
        group before it goes undoes whatever it set; pages others had cached stay."""
        name = "memory.reclaim" if self.version == "cgroup2" else "memory.force_empty"
        for group in self.dirs:
            control = group / name
            if control.exists():
                try:
                    control.write_text("1T" if self.version == "cgroup2" else "0")
                except OSError as exc:  # EAGAIN/EBUSY: some page could not be reclaimed
                    logger.debug("cannot empty %s: %s", group, exc)

    def oom_kills(self) -> int | None:
        """How many of the bot's processes its memory limit has killed: the memory group's
        OOM counter, ``oom_kill`` in ``memory.events`` (v2) or ``memory.oom_control`` (v1;
        a kernel older than 4.13 lacks it: then how often the limit was hit,
        ``memory.failcnt``). None once the group is gone."""
        try:
            if self.version == "cgroup2":
                return _counter(self._memory / "memory.events", "oom_kill")
            kills = _counter(self._memory / "memory.oom_control", "oom_kill")
            return int((self._memory / "memory.failcnt").read_text()) if kills is None else kills
        except (OSError, ValueError):
            return None

    def procs_fds(self) -> list[int]:
        """Open ``cgroup.procs`` of every group, for a child to join before it execs."""
        return [os.open(group / "cgroup.procs", os.O_WRONLY | os.O_CLOEXEC) for group in self.dirs]

    def pids(self) -> list[int]:
        """Every process in the groups (zombies included until reaped)."""
        found: set[int] = set()
        for group in self.dirs:
            with contextlib.suppress(FileNotFoundError):
                found.update(int(p) for p in (group / "cgroup.procs").read_text().split())
        return sorted(found)

    def contains(self, pid: int) -> bool:
        return pid in self.pids()

    def kill(self) -> bool:
        """SIGKILL everything in the groups until they are empty; True on success."""
        deadline = time.monotonic() + _KILL_TIMEOUT
        while pids := self.pids():
            if time.monotonic() > deadline:
                return False
            for pid in pids:
                _signal_pid(pid, signal.SIGKILL, self.contains)
            time.sleep(0.01)
        return True

    def remove(self) -> bool:
        """Kill what is left, evict what it brought into the page cache and remove the
        groups; True when none exists any more."""
        if not self.kill():
            return False
        if self._evicts:
            self._evict()
        deadline = time.monotonic() + _REMOVE_TIMEOUT
        for group in self.dirs:
            while True:
                try:
                    group.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:  # EBUSY while the last exiting tasks are released
                    if time.monotonic() > deadline:
                        logger.error("cannot remove cgroup %s", group)
                        return False
                    time.sleep(0.01)
        return True


def _counter(path: Path, name: str) -> int | None:
    """The value of ``name`` in a flat-keyed cgroup file ("name value" lines); None if absent."""
    for line in path.read_text().splitlines():
        key, _, value = line.partition(" ")
        if key == name:
            return int(value)
    return None


def _write_present(group: Path, settings: list[tuple[str, str]]) -> None:
    """Write each setting whose file the group has (a controller not mounted there has none)."""
    for name, value in settings:
        if (group / name).exists():
            (group / name).write_text(value)


def _enable_controllers(group: Path, controllers: Sequence[str]) -> None:
    """cgroup v2: let the children of ``group`` (and of its ancestors) use ``controllers``."""
    for parent in [*reversed(group.parents), group]:
        control = parent / "cgroup.subtree_control"
        if control.exists() and not set(controllers) <= set(control.read_text().split()):
            control.write_text(" ".join(f"+{c}" for c in controllers))


def joiner(fds: Sequence[int]) -> Callable[[], None]:
    """A ``preexec_fn`` step moving the forked child into the groups before it execs: the bot
    never runs a single instruction outside them."""

    def join() -> None:
        for fd in fds:
            os.write(fd, b"0")  # 0: the writing process itself

    return join


def sweep_groups(policy: SandboxPolicy, uid: int) -> bool:
    """Kill and remove the groups a killed platform left for ``uid``; True when none is left."""
    where = hierarchies(policy)
    return where is None or BotCgroup(where, policy, uid).remove()
