"""The sandboxed launcher against hostile programs (one script each, in tests/hostile_bots/)."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import signal
import socket
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

import arena
from arena import sandbox as sb
from arena.sandbox.limits import DEFAULT_LIMITS, KiB, Limits, MiB
from tests.bots.conftest import need_bwrap
from tests.support import hostile_program

ROOT = os.geteuid() == 0
GRACE = 0.5


@pytest.fixture(autouse=True)
def _fresh_warning_state() -> Iterator[None]:
    yield
    sb._reset_detection_cache()


def start(
    area: Path,
    script: str,
    *args: str,
    mode: str,
    limits: Limits = DEFAULT_LIMITS,
    env_extra: dict[str, str] | None = None,
    policy: sb.SandboxPolicy | None = None,
    address_arg: bool = False,
) -> sb.SandboxedProcess:
    bot = area / "bot"
    bot.mkdir(mode=0o755)
    shutil.copy(hostile_program(script), bot / script)
    (bot / script).chmod(0o644)
    policy = policy or sb.SandboxPolicy(mode=mode, stop_grace_seconds=GRACE)  # type: ignore[arg-type]
    return sb.launch(
        ["python3", script, *args],
        bot,
        log_path=area / "bot.log",
        limits=limits,
        env_extra=env_extra or {},
        policy=policy,
        address_arg=address_arg,
    )


def log_text(proc: sb.SandboxedProcess) -> str:
    return proc.log_path.read_text(errors="replace")


def json_output(proc: sb.SandboxedProcess) -> dict:
    proc.stop()
    lines = [line for line in log_text(proc).splitlines() if line.startswith("{")]
    assert lines, f"no JSON output; log:\n{log_text(proc)[-2000:]}"
    return json.loads(lines[-1])


def wait_for(predicate, timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


def marker_pids(marker: str, uid: int | None = None) -> list[int]:
    """Live (non-zombie) processes whose command line contains ``marker`` (and, with
    ``uid``, that already run as that uid: ``setpriv`` carries the marker as root first)."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as f:
                cmdline = f.read()
            with open(f"/proc/{name}/stat", "rb") as f:
                state = f.read().rsplit(b")", 1)[1].split()[0]
            owner = os.stat(f"/proc/{name}").st_uid
        except OSError:
            continue
        if marker.encode() in cmdline and state not in (b"Z", b"X") and uid in (None, owner):
            found.append(int(name))
    return found


def killed_by(rc: int | None, *signals: int, mode: str) -> bool:
    """bwrap reports a child killed by signal N as exit status 128+N."""
    if mode == "bwrap":
        return rc in {128 + s for s in signals}
    return rc in {-s for s in signals}


# --------------------------------------------------------------------------- plumbing


def test_bot_address_is_in_its_private_tmp(area: Path, mode: str) -> None:
    with start(area, "unix_echo.py", mode=mode, address_arg=True) as proc:
        if mode == "bwrap":
            assert proc.bot_address == "unix:/tmp/bot.sock"
        else:
            assert proc.bot_address.endswith("/bot.sock")
            assert "arena" in proc.bot_address
    with pytest.raises(ValueError):
        sb.launch(["true"], area / "bot", log_path=area / "x.log", socket_name="../x.sock")


def test_limits_validation() -> None:
    with pytest.raises(ValueError):
        Limits(memory_bytes=0)
    with pytest.raises(ValueError):
        Limits(cpu_seconds=True)  # type: ignore[arg-type]
    assert "--as=" not in " ".join(Limits(address_space_bytes=None).prlimit_args())


def test_unix_socket_reachable_from_host(area: Path, mode: str) -> None:
    with start(area, "unix_echo.py", mode=mode, address_arg=True) as proc:
        assert wait_for(proc.socket_ready), log_text(proc)
        address = proc.connect_address()
        assert address.startswith("unix:/proc/self/fd/")
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
            client.settimeout(5)
            client.connect(address[len("unix:") :])
            assert client.recv(100) == b"hello from the sandbox"
        assert proc.wait(timeout=5) == 0
    with pytest.raises(sb.UnsafeSocket):
        proc.connect_address()  # stopped


def test_log_path_inside_the_private_tmp_dirs_is_refused(area: Path) -> None:
    (area / "bot").mkdir(mode=0o755)
    policy = sb.SandboxPolicy(mode="rlimits", private_tmp_root=area / "tmps")
    with pytest.raises(sb.SandboxError, match="log_path"):
        sb.launch(["true"], area / "bot", log_path=area / "tmps" / "1" / "bot.log", policy=policy)


def test_log_is_appended_and_capped_per_launch(area: Path) -> None:
    limits = Limits(log_bytes=4 * KiB)
    (area / "bot").mkdir(mode=0o755)
    shutil.copy(hostile_program("stderr_flood.py"), area / "bot" / "stderr_flood.py")
    policy = sb.SandboxPolicy(mode="rlimits", stop_grace_seconds=GRACE)
    log = area / "seat.log"
    log.write_bytes(b"earlier game\n")
    for _ in range(2):
        with sb.launch(
            ["python3", "stderr_flood.py", "1"],
            area / "bot",
            log_path=log,
            limits=limits,
            policy=policy,
            append_log=True,
        ) as proc:
            assert proc.wait(timeout=10) == 0
    data = log.read_bytes()
    assert data.startswith(b"earlier game\n" + b"E" * 4096)
    assert data.count(b"E") == 2 * 4096
    assert data.count(b"[arena: log truncated at 4096 bytes") == 2
    with sb.launch(["true"], area / "bot", log_path=log, policy=policy) as proc:
        proc.wait(timeout=10)
    assert log.read_bytes() == b""  # without append_log: truncated


# --------------------------------------------------------------------------- hostile bots


def test_a_symlinked_socket_is_never_followed(area: Path, mode: str) -> None:
    victim = area / "victim.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
        listener.bind(str(victim))
        victim.chmod(0o777)
        listener.listen(5)
        with start(area, "symlink_socket.py", str(victim), mode=mode, address_arg=True) as proc:
            assert wait_for(proc.socket_ready), log_text(proc)
            # the bot prints once the symlink is there: the line may come a moment later
            assert wait_for(lambda: "symlink planted" in log_text(proc)), log_text(proc)
            with pytest.raises(sb.UnsafeSocket, match="is a symlink, not a socket"):
                proc.connect_address()
        listener.setblocking(False)
        with pytest.raises(BlockingIOError):  # nothing ever reached the accept queue
            listener.accept()


def test_network_is_cut_off(area: Path) -> None:
    need_bwrap()
    accepted: list[object] = []
    marker = uuid.uuid4().hex
    with (
        socket.socket(socket.AF_INET, socket.SOCK_STREAM) as tcp,
        socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as abstract,
    ):
        tcp.bind(("127.0.0.1", 0))
        tcp.listen(5)
        tcp.settimeout(0.2)
        abstract.bind("\0" + marker)
        abstract.listen(5)
        abstract.settimeout(0.2)
        stop = threading.Event()

        def accept_all() -> None:
            while not stop.is_set():
                for server in (tcp, abstract):
                    with contextlib.suppress(OSError):
                        accepted.append(server.accept())

        thread = threading.Thread(target=accept_all, daemon=True)
        thread.start()
        try:
            port = str(tcp.getsockname()[1])
            proc = start(area, "net_connect.py", port, marker, mode="bwrap")
            proc.wait(timeout=10)
            result = json_output(proc)
        finally:
            stop.set()
            thread.join()
    assert result["host_loopback"] == "ECONNREFUSED"  # its loopback is not the host's
    assert result["public_dns"] in ("ENETUNREACH", "EHOSTUNREACH", "timeout")
    assert result["abstract_unix"] == "ECONNREFUSED"  # abstract sockets live in the netns
    assert accepted == []


def test_cannot_read_outside_its_directory(area: Path) -> None:
    need_bwrap()
    platform = area / "platform"
    platform.mkdir(mode=0o755)
    (platform / "arena.sqlite").write_text("TOP SECRET DATABASE")
    (platform / "arena.sqlite").chmod(0o644)  # only the sandbox keeps the bot out
    other = area / "other-bot"
    other.mkdir(mode=0o755)
    (other / "bot.py").write_text("SECRET STRATEGY")
    (other / "bot.py").chmod(0o644)
    repo_file = Path(next(iter(arena.__path__))).parent / "pyproject.toml"
    paths = [
        str(platform / "arena.sqlite"),
        str(other / "bot.py"),
        str(area),
        str(repo_file),
        "/home",
        "/etc/passwd",
        "/etc/shadow",
        "/var",
        "/root",
    ]
    proc = start(area, "read_outside.py", *paths, mode="bwrap")
    proc.wait(timeout=10)
    result = json_output(proc)
    for path in paths[:-1]:
        assert result[path] == "ENOENT", (path, result[path])
    # /root only holds the directories leading to the read-only Python runtime.
    policy = sb.SandboxPolicy()
    allowed = {
        Path(p).relative_to("/root").parts[0]
        for p in sb._runtime_paths(policy)
        if p.startswith("/root/")
    }
    root_view = result["/root"]
    if root_view.startswith("read:"):
        assert set(filter(None, root_view[5:].split(","))) <= allowed
    assert "SECRET" not in log_text(proc)


def test_bot_directory_is_read_only(area: Path, mode: str) -> None:
    if mode == "rlimits" and not ROOT:
        pytest.skip("rlimits mode without root cannot protect the bot directory")
    proc = start(area, "write_own_dir.py", mode=mode)
    proc.wait(timeout=10)
    result = json_output(proc)
    for action in (
        "create_in_cwd",
        "overwrite_own_code",
        "delete_own_code",
        "mkdir_in_cwd",
        "write_root",
        "write_usr",
    ):
        assert result[action] in ("EROFS", "EACCES"), (action, result)
    if mode == "bwrap":  # a read-only mount, whatever the file permissions say
        assert result["create_in_cwd"] == result["delete_own_code"] == "EROFS"
    assert result["write_tmp"] == "ok"
    assert (area / "bot" / "write_own_dir.py").read_bytes() == (
        hostile_program("write_own_dir.py")
    ).read_bytes()
    assert not (area / "bot" / "new_file.txt").exists()


def test_fork_bomb_is_contained(area: Path, mode: str) -> None:
    if mode == "rlimits" and not ROOT:
        pytest.skip("RLIMIT_NPROC needs a dedicated uid (root) or a user namespace (bwrap)")
    marker = uuid.uuid4().hex
    limits = Limits(max_processes=32)
    proc = start(area, "fork_bomb.py", marker, mode=mode, limits=limits)
    try:
        assert wait_for(lambda: "fork refused" in log_text(proc), timeout=10), log_text(proc)
        # The limit counts tasks of the sandbox; allow for bwrap's two helper processes,
        # which carry the marker on their command line.
        assert len(marker_pids(marker)) <= limits.max_processes + 2
        assert subprocess.run(["true"], check=False).returncode == 0  # the host can fork
    finally:
        proc.stop()
    assert not proc.alive()
    assert marker_pids(marker) == []


def test_memory_hog_is_stopped(area: Path, mode: str) -> None:
    limits = Limits(memory_bytes=256 * MiB)
    proc = start(area, "memory_hog.py", mode=mode, limits=limits)
    rc = proc.wait(timeout=20)
    text = log_text(proc)
    proc.stop()
    assert rc != 0
    reached = [int(line.split()[1]) for line in text.splitlines() if line.startswith("allocated")]
    assert 64 <= max(reached, default=0) <= 256, text[-500:]  # its own report
    # Stopped by RLIMIT_DATA, or by the OOM killer of its memory cgroup.
    oom_killed = proc.resource_control != "rlimits" and killed_by(rc, signal.SIGKILL, mode=mode)
    assert "MemoryError after" in text or oom_killed, text[-500:]


def test_cpu_spinner_is_killed(area: Path, mode: str) -> None:
    started = time.monotonic()
    proc = start(area, "cpu_spin.py", mode=mode, limits=Limits(cpu_seconds=1))
    rc = proc.wait(timeout=15)
    proc.stop()
    assert killed_by(rc, signal.SIGXCPU, signal.SIGKILL, mode=mode), rc
    assert time.monotonic() - started < 10


def test_stderr_flood_is_capped_and_never_blocks(area: Path, mode: str) -> None:
    limits = Limits(log_bytes=1 * MiB)
    proc = start(area, "stderr_flood.py", "16", mode=mode, limits=limits)
    assert proc.wait(timeout=15) == 0  # it finished writing: the pipe kept draining
    proc.stop()
    size = proc.log_path.stat().st_size
    assert limits.log_bytes <= size <= limits.log_bytes + 200
    assert proc.log_truncated
    assert proc.log_bytes_dropped >= 15 * MiB
    assert "log truncated" in log_text(proc)[-200:]


def test_huge_file_hits_file_size_limit(area: Path, mode: str) -> None:
    limits = Limits(file_size_bytes=4 * MiB, tmp_bytes=64 * MiB)
    proc = start(area, "big_file.py", "64", mode=mode, limits=limits)
    proc.wait(timeout=10)
    result = json_output(proc)
    assert result["error"] == "EFBIG"
    assert result["written"] <= 4 * MiB


def test_private_tmp_is_size_capped(area: Path) -> None:
    need_bwrap()
    limits = Limits(file_size_bytes=64 * MiB, tmp_bytes=2 * MiB)
    proc = start(area, "big_file.py", "64", mode="bwrap", limits=limits)
    proc.wait(timeout=10)
    result = json_output(proc)
    assert result["error"] == "ENOSPC"
    assert result["written"] <= 2 * MiB


def test_no_platform_secrets_in_environment(
    area: Path, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARENA_DATABASE_URL", "postgres://arena:hunter2-secret@db/arena")
    monkeypatch.setenv("ARENA_API_TOKEN", "tok-secret-42")
    proc = start(area, "dump_env.py", mode=mode, env_extra={"CALLBREAK_ADDRESS": "unix:/x"})
    proc.wait(timeout=10)
    result = json_output(proc)
    env = result["env"]
    assert env["CALLBREAK_ADDRESS"] == "unix:/x"
    assert set(env) <= {"PATH", "HOME", "TMPDIR", "LANG", "PYTHONDONTWRITEBYTECODE", "PWD"} | {
        "CALLBREAK_ADDRESS"
    }
    if ROOT:
        assert result["uid"] != 0
    if mode == "bwrap" or ROOT:  # else it can read the platform's /proc/PID/environ
        assert "secret" not in log_text(proc)


def test_nothing_survives_stop(area: Path, mode: str) -> None:
    marker = uuid.uuid4().hex
    proc = start(area, "escape_and_linger.py", marker, mode=mode)
    assert wait_for(lambda: "ready" in log_text(proc), timeout=10), log_text(proc)
    assert wait_for(lambda: len(marker_pids(marker)) >= 2)
    started = time.monotonic()
    rc = proc.stop()
    assert time.monotonic() - started < GRACE + 3
    assert marker_pids(marker) == []
    assert not proc.alive()
    assert rc is not None and proc.returncode == rc
    assert proc.stop() == rc  # idempotent


def test_context_manager_and_usage(area: Path, mode: str) -> None:
    marker = uuid.uuid4().hex
    with start(area, "escape_and_linger.py", marker, mode=mode) as proc:
        assert wait_for(lambda: "ready" in log_text(proc), timeout=10)
        assert proc.alive() and proc.returncode is None
        usage = proc.usage()
        assert usage.processes >= 2
        assert usage.rss_bytes > 0
    assert not proc.alive()
    assert marker_pids(marker) == []


def test_launch_from_a_short_lived_thread_survives_it(area: Path, mode: str) -> None:
    """bwrap's --die-with-parent follows the forking *thread*; launches must not die with
    the worker thread that asked for them."""
    box: dict[str, sb.SandboxedProcess] = {}
    marker = uuid.uuid4().hex
    worker = threading.Thread(
        target=lambda: box.update(p=start(area, "escape_and_linger.py", marker, mode=mode))
    )
    worker.start()
    worker.join()
    with box["p"] as proc:
        assert wait_for(lambda: "ready" in log_text(proc), timeout=10), log_text(proc)
        time.sleep(0.2)
        assert proc.alive(), proc.returncode
    assert marker_pids(marker) == []


def test_uid_leftovers_of_a_crashed_platform_are_swept(area: Path) -> None:
    if not ROOT:
        pytest.skip("per-bot uids need root")
    uid, marker = 59990, uuid.uuid4().hex
    as_uid = ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]
    leftover = subprocess.Popen([*as_uid, "sh", "-c", "sleep 30; :", marker])
    try:
        assert wait_for(lambda: marker_pids(marker, uid) != [])
        policy = sb.SandboxPolicy(
            mode="rlimits", uid_base=uid, uid_count=1, uid_lock_dir=area / "locks"
        )
        with start(area, "cpu_spin.py", mode="rlimits", policy=policy) as proc:
            assert proc.uid == uid
            assert marker_pids(marker) == []  # killed before the uid was reused
        assert (area / "locks" / f"{uid}.lock").read_bytes().startswith(b"clean ")
    finally:
        leftover.kill()
        leftover.wait()


def test_leftovers_of_a_crashed_platform_are_swept_at_start_up(area: Path) -> None:
    if not ROOT:
        pytest.skip("per-bot uids need root")
    uid, marker = 59991, uuid.uuid4().hex
    locks = area / "locks"
    locks.mkdir(mode=0o700)
    (locks / f"{uid}.lock").write_bytes(b"in use by pid 999999".ljust(31) + b"\n")
    (locks / f"{uid + 1}.lock").write_bytes(b"clean".ljust(31) + b"\n")
    as_uid = ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]
    leftover = subprocess.Popen([*as_uid, "sh", "-c", "sleep 30; :", marker])
    try:
        assert wait_for(lambda: marker_pids(marker, uid) != [])
        policy = sb.SandboxPolicy(uid_base=uid, uid_count=2, uid_lock_dir=locks)
        assert sb.sweep_leftovers(policy) == 1
        assert wait_for(lambda: marker_pids(marker) == [])
        assert (locks / f"{uid}.lock").read_bytes().startswith(b"clean ")
        assert sb.sweep_leftovers(policy) == 0  # nothing left to do
    finally:
        leftover.kill()
        leftover.wait()


# --------------------------------------------------------------------------- modes


def test_default_limits_fit_python_grpc_and_node(area: Path) -> None:
    need_bwrap()
    bot = area / "bot"
    bot.mkdir(mode=0o755)
    grpc_server = (
        "import grpc, concurrent.futures as f; s = grpc.server(f.ThreadPoolExecutor(8)); "
        "s.add_insecure_port('unix:/tmp/x.sock'); s.start(); print('grpc ok')"
    )
    node_alloc = (
        "const a = []; for (let i = 0; i < 200; i++) a.push(Buffer.alloc(1 << 20, 1)); "
        "console.log('node ok')"
    )
    commands = [["python3", "-c", grpc_server]]
    if shutil.which("node"):
        commands.append(["node", "-e", node_alloc])
    for i, command in enumerate(commands):
        with sb.launch(
            command,
            bot,
            log_path=area / f"{i}.log",
            policy=sb.SandboxPolicy(mode="bwrap"),
        ) as proc:
            assert proc.wait(timeout=20) == 0, log_text(proc)
        assert "ok" in log_text(proc)


def test_no_silent_downgrade_auto_refuses_without_bwrap(area: Path) -> None:
    """Without a usable bwrap, ``auto`` refuses in one line that says what to do; nothing
    is started."""
    sb._reset_detection_cache()
    missing = sb.SandboxPolicy(bwrap_path="/nonexistent/bwrap")
    for policy in (missing, sb.SandboxPolicy(mode="bwrap", bwrap_path="/nonexistent/bwrap")):
        with pytest.raises(sb.SandboxUnavailable) as err:
            sb.resolve_mode(policy)
        message = str(err.value)
        assert "/nonexistent/bwrap not found" in message and "\n" not in message
        assert "arena setup" in message and "--unsafe-no-sandbox" in message
    (area / "bot").mkdir(mode=0o755)
    marker = uuid.uuid4().hex
    with pytest.raises(sb.SandboxUnavailable):
        sb.launch(
            ["sleep", "30", marker],
            area / "bot",
            log_path=area / "bot.log",
            policy=missing,
        )
    assert marker_pids(marker) == []


def test_explicit_rlimits_mode_runs_and_warns_once(
    area: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Only the operator's explicit choice (--unsafe-no-sandbox sets this mode) runs bots
    without bwrap, and says so loudly."""
    sb._reset_detection_cache()
    policy = sb.SandboxPolicy(mode="rlimits", stop_grace_seconds=GRACE)
    with caplog.at_level(logging.WARNING, logger="arena.sandbox"):
        assert sb.resolve_mode(policy) == "rlimits"
        assert sb.resolve_mode(policy) == "rlimits"
        proc = start(area, "dump_env.py", mode="rlimits", policy=policy)
        proc.wait(timeout=10)
        result = json_output(proc)
    downgrades = [r for r in caplog.records if "SANDBOX DOWNGRADED" in r.getMessage()]
    assert len(downgrades) == 1
    assert downgrades[0].levelno == logging.WARNING
    assert "--unsafe-no-sandbox" in downgrades[0].getMessage()
    assert proc.mode == "rlimits"
    assert proc.bot_address != "unix:/tmp/bot.sock"
    assert result["env"]["HOME"] == result["env"]["TMPDIR"] != "/tmp"
    if ROOT:
        assert result["uid"] == proc.uid != 0


def test_require_sandbox_refuses_even_the_explicit_rlimits_mode(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with pytest.raises(sb.SandboxUnavailable, match="ARENA_REQUIRE_SANDBOX"):
        sb.resolve_mode(sb.SandboxPolicy(mode="rlimits", require_sandbox=True))
    monkeypatch.setenv("ARENA_REQUIRE_SANDBOX", "1")
    monkeypatch.setenv("ARENA_SANDBOX_MODE", "rlimits")
    from_env = sb.SandboxPolicy.from_env()
    assert from_env.require_sandbox and from_env.mode == "rlimits"
    with pytest.raises(sb.SandboxUnavailable):
        sb.resolve_mode()


def test_log_cap_small(area: Path) -> None:
    """A tiny cap: exactly ``log_bytes`` of output are kept, then one note."""
    proc = start(area, "stderr_flood.py", "1", mode="rlimits", limits=Limits(log_bytes=4 * KiB))
    assert proc.wait(timeout=10) == 0
    proc.stop()
    data = proc.log_path.read_bytes()
    assert data.startswith(b"E" * 4096)
    assert data[4096:].startswith(b"\n[arena: log truncated at 4096 bytes")
    assert data.count(b"E") == 4096


def test_runtime_paths_under_tmp_stay_visible(area: Path) -> None:
    """Regression: a checkout or venv under /tmp was hidden by the sandbox's private /tmp, so
    bots could not import the SDK when CI cloned the project there."""
    need_bwrap()
    shared = area / "runtime"
    shared.mkdir(mode=0o755)
    (shared / "sdk.txt").write_text("visible")
    (shared / "sdk.txt").chmod(0o644)
    policy = sb.SandboxPolicy(mode="bwrap", stop_grace_seconds=GRACE, extra_ro_paths=(str(shared),))
    proc = start(
        area, "read_outside.py", str(shared / "sdk.txt"), "/tmp", mode="bwrap", policy=policy
    )
    proc.wait(timeout=10)
    result = json_output(proc)
    assert result[str(shared / "sdk.txt")] == "read:visible"
    assert str(area.relative_to("/tmp")).split("/")[0] in result["/tmp"]  # bound inside the tmpfs
