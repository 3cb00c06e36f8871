"""The sandbox's resource caps against hostile programs (tests/hostile_bots/): cgroups,
shared memory, tmpfs bytes and inodes, nested user namespaces, and what a killed platform
leaves."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import pytest

from arena import sandbox as sb
from arena.sandbox import cgroups
from arena.sandbox.limits import Limits, MiB
from tests.bots.conftest import need_bwrap
from tests.bots.test_sandbox import (
    GRACE,
    ROOT,
    json_output,
    log_text,
    marker_pids,
    start,
    wait_for,
)
from tests.support import hostile_program, need, need_cgroups

POLICY = sb.SandboxPolicy(stop_grace_seconds=GRACE)


def group_dirs(uid: int) -> list[Path]:
    where = cgroups.hierarchies(POLICY)
    assert where is not None
    return [root / POLICY.cgroup_parent / f"uid-{uid}" for root in cgroups._roots(where)]


def group_file(uid: int, name: str) -> str:
    for group in group_dirs(uid):
        if (group / name).exists():
            return (group / name).read_text().strip()
    raise AssertionError(f"no {name} in {group_dirs(uid)}")


def bot_limit(pid: int, name: str) -> str:
    """The soft limit ``name`` (e.g. "Max processes") of a process, from /proc/PID/limits."""
    text = Path(f"/proc/{pid}/limits").read_text()
    return re.search(rf"^{name}\s+(\S+)", text, re.M)[1]


# --------------------------------------------------------------------------- cgroups


def test_cgroup_is_active_and_its_pids_max_stops_a_fork_bomb(area: Path, mode: str) -> None:
    need_cgroups(POLICY)
    marker = uuid.uuid4().hex
    limits = Limits(max_processes=32, memory_bytes=512 * MiB)
    proc = start(area, "fork_bomb.py", marker, mode=mode, limits=limits)
    try:
        assert proc.resource_control == cgroups.hierarchies(POLICY).version
        assert wait_for(lambda: "fork refused" in log_text(proc), timeout=10), log_text(proc)
        assert group_file(proc.uid, "pids.max") == "32"
        memory = "memory.max" if proc.resource_control == "cgroup2" else "memory.limit_in_bytes"
        assert group_file(proc.uid, memory) == str(512 * MiB)
        if cgroups.hierarchies(POLICY).cpu is not None:  # one core (Limits.cpu_cores)
            cpu = "cpu.max" if proc.resource_control == "cgroup2" else "cpu.cfs_quota_us"
            assert group_file(proc.uid, cpu).split()[0] == "100000"
        assert int(group_file(proc.uid, "pids.current")) <= 32
        bots = marker_pids(marker)
        assert bots
        for pid in bots[:5]:  # the host sees each process in the bot's own groups
            membership = Path(f"/proc/{pid}/cgroup").read_text()
            mine = membership.count(f"/{POLICY.cgroup_parent}/uid-{proc.uid}\n")
            assert mine == len(group_dirs(proc.uid)), membership  # v1: memory, pids, cpu(acct)
            # ...and it was pids.max that refused the fork, not an rlimit
            assert bot_limit(pid, "Max processes") != "32"
    finally:
        proc.stop()
    assert marker_pids(marker) == []
    assert not any(group.exists() for group in group_dirs(proc.uid))  # removed at stop


def test_shared_memory_beyond_the_cap_kills_only_the_bot(area: Path, mode: str) -> None:
    """RLIMIT_DATA does not count MAP_SHARED memory; the memory cgroup does."""
    need_cgroups(POLICY)
    limits = Limits(memory_bytes=256 * MiB)
    proc = start(area, "shared_memory_hog.py", "1024", mode=mode, limits=limits)
    rc = proc.wait(timeout=60)
    text = log_text(proc)
    kills = proc.oom_kills()  # the memory group's OOM counter, read live...
    proc.stop()
    assert kills is not None and kills >= 1, text[-500:]
    assert proc.oom_kills() == kills  # ...and kept once the group is removed
    touched = {"parent": 0, "child": 0}
    for role, mib in re.findall(r"^(parent|child) touched (\d+) MiB$", text, re.M):
        touched[role] = max(touched[role], int(mib))
    assert touched["parent"] + touched["child"] <= 256, (touched, text[-500:])
    assert touched["parent"] + touched["child"] >= 64  # it did get going
    assert "held" not in text and rc != 0
    assert subprocess.run(["true"], check=False).returncode == 0  # the host is fine


def test_a_tmpfs_bigger_than_the_memory_cap_is_capped_by_it(area: Path) -> None:
    need_bwrap()
    need_cgroups(POLICY)
    limits = Limits(memory_bytes=128 * MiB, tmp_bytes=512 * MiB, file_size_bytes=512 * MiB)
    proc = start(area, "big_file.py", "512", mode="bwrap", limits=limits)
    proc.wait(timeout=30)
    text = log_text(proc)
    lines = [line for line in text.splitlines() if line.startswith("{")]
    proc.stop()
    if lines:  # refused with an error it could report...
        result = json.loads(lines[-1])
        assert result["error"] is not None and result["written"] <= 128 * MiB, result
    else:  # ...or killed by the group's OOM killer before it could
        assert proc.returncode != 0, text


# --------------------------------------------------------------------------- tmpfs, userns


def test_writes_beyond_the_tmpfs_caps_fail(area: Path) -> None:
    need_bwrap()
    limits = Limits(tmp_bytes=4 * MiB, tmp_inodes=1024)
    marker = uuid.uuid4().hex
    proc = start(area, "fill_everything.py", marker, "1000000", "shm", mode="bwrap", limits=limits)
    assert wait_for(lambda: "lingering" in log_text(proc), timeout=60), log_text(proc)[-500:]
    result = json_output(proc)
    assert result["big"]["error"] == "ENOSPC" and result["big"]["bytes"] <= 4 * MiB
    for place in ("tmp_files", "shm_files"):  # not a million: the inode cap
        assert result[place]["error"] == "ENOSPC", result
        assert result[place]["count"] < 1024, result
    for path in ("/escape.txt", "/run/arena/escape.txt", "/bot/escape.txt", "/var/tmp/x.txt"):
        assert result[path] in ("EROFS", "ENOENT", "EACCES"), (path, result[path])
    assert marker_pids(marker) == []


def test_no_nested_user_namespace_for_a_bigger_tmpfs(area: Path) -> None:
    need_bwrap()
    proc = start(area, "nested_userns.py", mode="bwrap")
    proc.wait(timeout=30)
    result = json_output(proc)
    assert result["unshare"] == "EPERM", result  # the seccomp filter, root or not
    assert result["written"] == 0


REFUSED = {
    **dict.fromkeys(["add_key", "request_key", "keyctl"], "EPERM"),
    **dict.fromkeys(["flock", "fcntl_setlk"], "ENOLCK"),
    **dict.fromkeys(["mincore", "readahead", "cachestat", "fadvise"], "ENOSYS"),
    **dict.fromkeys(["io_setup", "io_uring_setup", "process_madvise"], "ENOSYS"),
    **dict.fromkeys(["inotify_init1", "fanotify_init"], "ENOSYS"),
    "perf_event_open": "EACCES",
    "preadv2_nowait": "ENOTSUP",
    "madvise_pageout": "EPERM",
}
ALLOWED = {"fcntl_getfl": "ok", "preadv2": "ok", "madvise_dontneed": "ok", "fork": "ok"}


def test_the_filter_refuses_the_kernel_channels_and_nothing_next_to_them(area: Path) -> None:
    """Every call the filter refuses, with the errno bots see, and the same calls with
    harmless arguments still working; /proc/keys shows no key at all."""
    need_bwrap()
    proc = start(area, "kernel_calls.py", mode="bwrap")
    proc.wait(timeout=30)
    result = json_output(proc)
    assert {k: result[k] for k in REFUSED} == REFUSED
    assert {k: result[k] for k in ALLOWED} == ALLOWED
    # /proc/keys is covered: not even the bot's own session keyring shows.
    assert result["keys"] == [], result


def test_with_the_channels_open_the_same_calls_work(area: Path) -> None:
    """The control: ``close_channels=False`` lets the lock, key and cache calls through; the
    bot's session keyring is still a fresh one, none of the platform's."""
    need_bwrap()
    policy = sb.SandboxPolicy(mode="bwrap", stop_grace_seconds=GRACE, close_channels=False)
    proc = start(area, "kernel_calls.py", mode="bwrap", policy=policy)
    proc.wait(timeout=30)
    result = json_output(proc)
    for call in ("add_key", "keyctl", "flock", "fcntl_setlk", "fadvise"):
        assert result[call] == "ok", (call, result)
    # A new session keyring of its own, none of the platform's (root's) keyrings.
    assert "keyring _ses" in result["keys"], result
    assert not {"keyring _uid.0", "keyring _uid_ses.0"} & set(result["keys"]), result
    assert result["preadv2_nowait"] in ("ok", "EAGAIN")  # EAGAIN: the page was not cached


UNPRIVILEGED_PLATFORM = textwrap.dedent(
    """
    import json, socket, sys, time
    from pathlib import Path
    from arena import sandbox as sb

    area = Path(sys.argv[1])
    policy = sb.SandboxPolicy(mode="bwrap", uid_lock_dir=area / "locks")
    with sb.launch(["python3", "unprivileged_probe.py"], area / "bot", log_path=area / "log",
                   address_arg=True, policy=policy) as proc:
        deadline = time.monotonic() + 20
        while not proc.socket_ready() and time.monotonic() < deadline:
            time.sleep(0.01)
        with socket.socket(socket.AF_UNIX) as client:
            client.connect(proc.connect_address()[len("unix:"):])
            greeting = client.recv(100).decode()
        print(json.dumps({"greeting": greeting, "control": proc.resource_control}))
    """
)


def test_unprivileged_sandbox_connects_safely_and_forbids_user_namespaces(area: Path) -> None:
    """The platform as a plain user (nobody): bwrap in a user namespace of its own, the
    socket reached through /proc/<init>/root without privileges."""
    need(ROOT, "switching to an unprivileged platform user needs root")
    need_bwrap()
    checkout = Path(sb.__file__).parents[3]
    need(os.access(checkout, os.R_OK | os.X_OK), "the checkout must be readable by others")
    bot = area / "bot"
    bot.mkdir(mode=0o755)
    (bot / "unprivileged_probe.py").write_bytes(
        hostile_program("unprivileged_probe.py").read_bytes()
    )
    (bot / "unprivileged_probe.py").chmod(0o644)
    area.chmod(0o777)
    system_python = "/usr/bin/python3"  # the platform's may sit under /root
    as_nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(checkout), "HOME": str(area)}
    done = subprocess.run(
        [*as_nobody, system_python, "-c", UNPRIVILEGED_PLATFORM, str(area)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout) == {"greeting": "hello from the sandbox", "control": "rlimits"}
    report = json.loads((area / "log").read_text().splitlines()[0])
    # The seccomp filter refuses it first; bwrap's --disable-userns (ENOSPC) stands behind.
    assert report["unshare"] == "EPERM"
    assert report["caps"] == ["0000000000000000"]


# --------------------------------------------------------------------------- a killed platform

PLATFORM = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from arena import sandbox as sb
    from arena.sandbox.limits import Limits, MiB

    area, mode, marker, files, extra = sys.argv[1:6]
    policy = sb.SandboxPolicy(
        mode=mode, uid_base=59970, uid_count=1, uid_lock_dir=Path(area) / "locks",
        private_tmp_root=Path(area) / "tmps",
    )
    limits = Limits(tmp_bytes=4 * MiB, tmp_inodes=1024)
    args = ["python3", "fill_everything.py", marker, files, *extra.split()]
    proc = sb.launch(args, Path(area) / "bot", log_path=Path(area) / "bot.log",
                     limits=limits, policy=policy)
    print("launched", proc.uid, proc.resource_control, flush=True)
    time.sleep(60)
    """
)


def test_nothing_remains_after_the_platform_is_killed(area: Path, mode: str) -> None:
    need(ROOT, "the sweep works on leased uids, which need root")
    bot = area / "bot"
    bot.mkdir(mode=0o755)
    (bot / "fill_everything.py").write_bytes(hostile_program("fill_everything.py").read_bytes())
    (bot / "fill_everything.py").chmod(0o644)
    marker = uuid.uuid4().hex
    # rlimits mode writes the host's disk: keep it small there.
    files, extra = ("1000000", "shm") if mode == "bwrap" else ("100", "")
    platform = subprocess.Popen(
        [sys.executable, "-c", PLATFORM, str(area), mode, marker, files, extra],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        launched = platform.stdout.readline().split()
        assert launched[:2] == ["launched", "59970"], launched
        log = area / "bot.log"
        assert wait_for(lambda: "lingering" in log.read_text(errors="replace"), timeout=60)
        groups = group_dirs(59970) if launched[2] != "rlimits" else []
        assert all(group.exists() for group in groups)
        os.kill(platform.pid, signal.SIGKILL)  # mid-match: no stop(), no cleanup
    finally:
        platform.kill()
        platform.wait()
    policy = sb.SandboxPolicy(
        uid_base=59970, uid_count=1, uid_lock_dir=area / "locks", private_tmp_root=area / "tmps"
    )
    assert sb.sweep_leftovers(policy) == 1
    assert wait_for(lambda: marker_pids(marker) == [])
    assert not any(group.exists() for group in groups)
    # Nothing the bot wrote is left on the host: only its log and the platform's files.
    assert {p.name for p in area.iterdir()} <= {"bot", "bot.log", "locks", "tmps"}
    assert not (area / "tmps").exists() or list((area / "tmps").iterdir()) == []
    assert [p.name for p in bot.iterdir()] == ["fill_everything.py"]


# --------------------------------------------------------------------------- detection


def test_cgroup_v2_is_preferred_when_it_has_both_controllers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """This host only has v1; the choice between the hierarchies, on fake mounts. The cpu
    controller is taken where it is, and its absence does not stop the memory+pids groups."""
    unified = tmp_path / "unified"
    unified.mkdir()
    v1 = [
        (str(tmp_path / "memory"), "cgroup", {"rw", "memory"}),
        (str(tmp_path / "pids"), "cgroup", {"rw", "pids"}),
        (str(tmp_path / "cpu,cpuacct"), "cgroup", {"rw", "cpu", "cpuacct"}),
    ]
    v2 = [(str(unified), "cgroup2", {"rw"})]
    monkeypatch.setattr(cgroups, "_mounts", lambda: v2 + v1)
    (unified / "cgroup.controllers").write_text("cpu io\n")  # v2 without them: v1
    assert cgroups._find_hierarchies() == cgroups._Hierarchies(
        "cgroup1", tmp_path / "memory", tmp_path / "pids", tmp_path / "cpu,cpuacct"
    )
    (unified / "cgroup.controllers").write_text("cpu io memory pids\n")
    assert cgroups._find_hierarchies() == cgroups._Hierarchies("cgroup2", unified, unified, unified)
    (unified / "cgroup.controllers").write_text("io memory pids\n")
    assert cgroups._find_hierarchies() == cgroups._Hierarchies("cgroup2", unified, unified, None)
    monkeypatch.setattr(cgroups, "_mounts", lambda: v1[:2])  # v1 without a cpu controller
    assert cgroups._find_hierarchies() == cgroups._Hierarchies(
        "cgroup1", tmp_path / "memory", tmp_path / "pids", None
    )
    monkeypatch.setattr(cgroups, "_mounts", lambda: v1[:1])  # no pids controller anywhere
    assert cgroups._find_hierarchies() is None


def test_cgroup_v2_groups_are_one_folder_with_every_limit(tmp_path: Path) -> None:
    """v2 is not on this host: the settings written into one folder of fake files."""
    where = cgroups._Hierarchies("cgroup2", tmp_path, tmp_path, tmp_path)
    group = cgroups.BotCgroup(where, POLICY, 50123)
    assert group.dirs == [tmp_path / POLICY.cgroup_parent / "uid-50123"]
    limits = Limits(memory_bytes=256 * MiB, max_processes=32, cpu_cores=2)
    settings = dict(group._settings(limits))
    assert settings == {
        "memory.max": str(256 * MiB),
        "memory.swap.max": "0",
        "pids.max": "32",
        "cpu.max": "200000 100000",
        "cpu.weight": "100",
    }
    assert group.controllers == ["memory", "pids", "cpu"]


def test_setup_names_what_the_hosts_cgroups_leave_undone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`arena setup` prints these lines: nothing on a host with every controller, the open
    page-cache channel without a memory group, the CPU without a cpu controller."""
    need_cgroups(POLICY)
    assert cgroups.fair_play_gaps(POLICY) == (
        []
        if cgroups.hierarchies(POLICY).cpu
        else ["no cpu cgroup controller: a bot's processes are not held to one core"]
    )
    [gap] = cgroups.fair_play_gaps(sb.SandboxPolicy(use_cgroups=False))
    assert "page cache" in gap and "not evicted" in gap
    no_cpu = cgroups._Hierarchies("cgroup1", tmp_path, tmp_path, None)
    monkeypatch.setattr(cgroups, "hierarchies", lambda policy: no_cpu)
    assert cgroups.fair_play_gaps(POLICY) == [
        "no cpu cgroup controller: a bot's processes are not held to one core"
    ]
