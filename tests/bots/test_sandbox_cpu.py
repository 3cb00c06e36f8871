"""A bot's CPU share and CPU record in its cgroups: the turn's weight and quota, the small
quota while it waits, and its CPU time counted by its group, processes that exited included
(tests/hostile_bots/cpu_workers). How much CPU an honest bot keeps next to a hog is
measured by benchmarks/cpu_share.py; tests/referee/test_kernel_channels.py plays the hog."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from arena import sandbox as sb
from arena.sandbox import cgroups
from arena.sandbox.limits import Limits
from tests.bots.test_sandbox import GRACE, log_text, start, wait_for
from tests.support import need

POLICY = sb.SandboxPolicy(stop_grace_seconds=GRACE)


def test_v1_takes_a_cpuacct_mounted_apart_for_the_cpu_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The v1 cpu controller counts no CPU time: cpuacct does, mounted with it or apart."""
    memory, pids = (
        (str(tmp_path / "memory"), "cgroup", {"memory"}),
        (
            str(tmp_path / "pids"),
            "cgroup",
            {"pids"},
        ),
    )
    apart = [
        (str(tmp_path / "cpu"), "cgroup", {"cpu"}),
        (str(tmp_path / "acct"), "cgroup", {"cpuacct"}),
    ]
    monkeypatch.setattr(cgroups, "_mounts", lambda: [memory, pids, *apart])
    where = cgroups._find_hierarchies()
    assert where == cgroups._Hierarchies(
        "cgroup1", tmp_path / "memory", tmp_path / "pids", tmp_path / "cpu", tmp_path / "acct"
    )
    group = cgroups.BotCgroup(where, POLICY, 50123)
    assert group.dirs[-1] == tmp_path / "acct" / POLICY.cgroup_parent / "uid-50123"
    group.dirs[-1].mkdir(parents=True)
    assert group.cpu_seconds() is None  # no counter (yet)
    (group.dirs[-1] / "cpuacct.usage").write_text("2500000000\n")
    assert group.cpu_seconds() == 2.5
    together = [(str(tmp_path / "cpu,cpuacct"), "cgroup", {"cpu", "cpuacct"})]
    monkeypatch.setattr(cgroups, "_mounts", lambda: [memory, pids, *together])
    assert cgroups._find_hierarchies().cpuacct is None  # the cpu group has cpuacct.usage


@pytest.mark.parametrize("version", ["cgroup1", "cgroup2"])
def test_a_waiting_bot_gets_the_least_weight_and_a_small_quota(tmp_path: Path, version) -> None:
    """On fake files: the turn's weight and whole quota, and while the bot waits the least
    weight and ``WAITING_QUOTA_US`` per period; the v2 counter from cpu.stat."""
    where = cgroups._Hierarchies(version, tmp_path, tmp_path, tmp_path)
    group = cgroups.BotCgroup(where, POLICY, 50123)
    group.create(Limits(cpu_cores=2))  # real folders; no kernel files to write there
    files = {"cgroup1": ("cpu.cfs_quota_us", "cpu.shares"), "cgroup2": ("cpu.max", "cpu.weight")}
    quota, weight = (group.dirs[0] / name for name in files[version])

    def state() -> tuple[str, str]:
        return quota.read_text(), weight.read_text()

    waiting_quota = str(cgroups.WAITING_QUOTA_US)
    group.set_turn(False)
    if version == "cgroup1":
        assert state() == (waiting_quota, "2")
        group.set_turn(True)
        assert state() == ("200000", "1024")
    else:
        assert state() == (f"{waiting_quota} 100000", "1")
        group.set_turn(True)
        assert state() == ("200000 100000", "100")
        (group.dirs[0] / "cpu.stat").write_text("usage_usec 1500000\nuser_usec 1000000\n")
        assert group.cpu_seconds() == 1.5
    for path in group.dirs[0].iterdir():
        path.unlink()
    group.dirs[0].rmdir()


@pytest.mark.parametrize("version", ["cgroup1", "cgroup2"])
def test_the_bots_together_weigh_what_their_referee_does(tmp_path: Path, version) -> None:
    """On fake files: the bots' parent group weighs one task of the creating process's own
    niceness per core (``arena worker --nice``), so a niced worker's bots yield too."""
    need(os.geteuid() == 0, "needs root to give the niceness back")
    where = cgroups._Hierarchies(version, tmp_path, tmp_path, tmp_path)
    name = {"cgroup1": "cpu.shares", "cgroup2": "cpu.weight"}[version]
    parent = tmp_path / POLICY.cgroup_parent
    parent.mkdir()
    (parent / name).write_text("")  # written only where the kernel has the file
    before, weights = os.getpriority(os.PRIO_PROCESS, 0), []
    try:
        for nice in (0, 10):
            os.setpriority(os.PRIO_PROCESS, 0, nice)
            group = cgroups.BotCgroup(where, POLICY, 50124 + nice)
            group.create(Limits())
            weights.append(int((parent / name).read_text()))
    finally:
        os.setpriority(os.PRIO_PROCESS, 0, before)
    cores = os.cpu_count() or 1
    ordinary = {"cgroup1": 1024, "cgroup2": 100}[version]
    assert weights[0] == ordinary * cores
    assert abs(weights[1] - ordinary * cores * 110 / 1024) <= 1  # the kernel's nice-10 weight
    assert weights[1] < weights[0] / 9


def test_cpu_time_of_processes_that_exited_is_counted(area: Path, mode: str) -> None:
    """Workers that burn CPU and exit, reaped by nobody the bot waits for: a count of the
    live processes would miss their time; the group's counter holds it."""
    where = cgroups.hierarchies(POLICY)
    need(where is not None and (where.cpu or where.cpuacct) is not None, "needs a cpu cgroup")
    proc = start(area, "cpu_workers.py", "0.3", mode=mode)
    try:
        assert wait_for(lambda: "BURNED" in log_text(proc), timeout=60), log_text(proc)
        burned = float(re.search(r"^BURNED (\S+)$", log_text(proc), re.M)[1])
        assert burned >= 4 * 0.3
        assert proc.usage().processes <= 3  # the program (and bwrap's init): workers gone
        assert proc.usage().cpu_seconds >= burned
    finally:
        proc.stop()
