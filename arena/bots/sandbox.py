"""Start an untrusted command in a sandbox and guarantee that it is cleaned up.

This module knows nothing about gRPC or the game. It starts ``command`` with the bot's own
directory as working directory, captures stdout+stderr to a capped log file, and kills and
reaps the whole process tree on :meth:`SandboxedProcess.stop`.

Two modes (see docs/sandbox.md for exactly what each enforces):

``bwrap``
    bubblewrap: new pid/net/ipc/uts namespaces, a minimal read-only view of the runtime,
    the bot directory read-only at ``/bot``, a private ``/tmp``, the socket directory at
    ``/run/arena``; plus the rlimits below.
``rlimits``
    fallback when bwrap is missing or does not work: rlimits (and, as root, a dedicated
    uid) only. Logged loudly once per process; refused when ``require_sandbox`` is set.

Typical use::

    policy = SandboxPolicy.from_env()
    endpoint = socket_endpoint(socket_dir, policy=policy)
    with launch([*command, endpoint.bot_address], bot_dir, socket_dir=socket_dir,
                log_path=log_path, env_extra={"CALLBREAK_ADDRESS": endpoint.bot_address},
                policy=policy) as proc:
        channel = grpc.insecure_channel(endpoint.host_address)
        ...
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import functools
import logging
import os
import queue
import resource
import select
import shutil
import signal
import site
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import BinaryIO, Literal, TypeVar

from arena.bots.limits import DEFAULT_LIMITS, Limits

logger = logging.getLogger(__name__)
_T = TypeVar("_T")

Mode = Literal["bwrap", "rlimits"]

BOT_DIR_INSIDE = PurePosixPath("/bot")
SOCKET_DIR_INSIDE = PurePosixPath("/run/arena")
DEFAULT_SOCKET_NAME = "bot.sock"

# Host paths bound read-only into the bwrap sandbox (when they exist), besides /usr, the
# top-level /bin, /lib... entries and the Python runtime.
_ETC_PATHS = (
    "/etc/alternatives",
    "/etc/ssl",
    "/etc/ca-certificates",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/localtime",
)
_TOP_LEVEL_RUNTIME = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
_TOOL_PATH = "/usr/bin:/bin:/usr/sbin:/sbin"
_SHM_BYTES = 8 * 1024 * 1024  # /dev/shm (POSIX semaphores, e.g. multiprocessing)
_PROBE_TIMEOUT = 10.0
_KILL_TIMEOUT = 5.0
_TRUTHY = {"1", "true", "yes", "on"}


class SandboxError(RuntimeError):
    """The sandbox could not start or clean up a bot."""


class SandboxUnavailable(SandboxError):
    """No real sandbox (bwrap) is usable and the policy forbids the rlimits-only fallback."""


@dataclass(frozen=True)
class SandboxPolicy:
    """How bots are sandboxed on this host (one per platform process, usually from env).

    mode
        ``"auto"`` (bwrap when ``bwrap_path`` exists and a probe run works, else rlimits),
        ``"bwrap"`` (bwrap or :class:`SandboxUnavailable`) or ``"rlimits"``.
    require_sandbox
        Refuse the rlimits-only mode (raise :class:`SandboxUnavailable`).
    uid_base, uid_count
        When the platform runs as root, every running bot gets its own host uid (and gid)
        from this range, leased with a lock file in ``uid_lock_dir`` so that concurrent
        platform processes never share one. A per-bot uid is what makes RLIMIT_NPROC count
        (the kernel never enforces it for uid 0) and keeps bots from signalling each other.
    extra_ro_paths
        More host paths to bind read-only at the same place (e.g. a JDK under /opt).
    stop_grace_seconds
        Time between SIGTERM and SIGKILL in :meth:`SandboxedProcess.stop`.
    """

    mode: Literal["auto", "bwrap", "rlimits"] = "auto"
    require_sandbox: bool = False
    bwrap_path: str = "/usr/bin/bwrap"
    uid_base: int = 50000
    uid_count: int = 1000
    uid_lock_dir: Path = Path(tempfile.gettempdir()) / "arena-sandbox-uids"
    extra_ro_paths: tuple[str, ...] = ()
    stop_grace_seconds: float = 2.0

    def __post_init__(self) -> None:
        if self.mode not in ("auto", "bwrap", "rlimits"):
            raise ValueError(f"SandboxPolicy.mode must be auto, bwrap or rlimits: {self.mode!r}")
        if self.uid_base <= 0 or self.uid_count <= 0:
            raise ValueError("SandboxPolicy.uid_base and uid_count must be positive")

    @classmethod
    def from_env(
        cls, environ: Mapping[str, str] | None = None, **overrides: object
    ) -> SandboxPolicy:
        """Policy from ``ARENA_REQUIRE_SANDBOX`` (1/true/yes/on) and ``ARENA_SANDBOX_MODE``."""
        env = os.environ if environ is None else environ
        kwargs: dict[str, object] = {}
        if env.get("ARENA_REQUIRE_SANDBOX", "").strip().lower() in _TRUTHY:
            kwargs["require_sandbox"] = True
        if env.get("ARENA_SANDBOX_MODE", "").strip():
            kwargs["mode"] = env["ARENA_SANDBOX_MODE"].strip().lower()
        kwargs.update(overrides)
        return cls(**kwargs)  # type: ignore[arg-type]


@dataclass(frozen=True)
class SocketEndpoint:
    """Where a bot's Unix socket lives, seen from the host and from inside the sandbox."""

    host_path: Path
    bot_path: PurePosixPath

    @property
    def bot_address(self) -> str:
        """The gRPC target to give the bot (it binds/listens here)."""
        return f"unix:{self.bot_path}"

    @property
    def host_address(self) -> str:
        """The gRPC target the platform connects to."""
        return f"unix:{self.host_path}"


def endpoint_for(
    socket_dir: Path, mode: Mode, socket_name: str = DEFAULT_SOCKET_NAME
) -> SocketEndpoint:
    """Socket paths for ``socket_dir`` in ``mode`` (bwrap mounts it at /run/arena)."""
    if "/" in socket_name or socket_name in ("", ".", ".."):
        raise ValueError(f"bad socket name {socket_name!r}")
    host = Path(socket_dir).absolute() / socket_name
    inside = SOCKET_DIR_INSIDE / socket_name if mode == "bwrap" else PurePosixPath(host)
    return SocketEndpoint(host_path=host, bot_path=inside)


def socket_endpoint(
    socket_dir: Path,
    *,
    policy: SandboxPolicy | None = None,
    socket_name: str = DEFAULT_SOCKET_NAME,
) -> SocketEndpoint:
    """Socket paths for a bot that :func:`launch` will start with the same ``policy``."""
    return endpoint_for(socket_dir, resolve_mode(policy), socket_name)


# --------------------------------------------------------------------------- mode detection

_detect_lock = threading.Lock()
_probe_results: dict[tuple[str, int], str | None] = {}
_downgrade_warned = False


def resolve_mode(policy: SandboxPolicy | None = None) -> Mode:
    """The mode :func:`launch` uses under ``policy`` (probes bwrap once per process)."""
    policy = SandboxPolicy.from_env() if policy is None else policy
    if policy.mode == "rlimits":
        reason = "ARENA_SANDBOX_MODE/SandboxPolicy.mode is 'rlimits'"
    else:
        problem = _bwrap_problem(policy)
        if problem is None:
            return "bwrap"
        if policy.mode == "bwrap":
            raise SandboxUnavailable(f"bwrap sandbox requested but unusable: {problem}")
        reason = f"bwrap is unusable: {problem}"
    if policy.require_sandbox:
        raise SandboxUnavailable(
            f"refusing to run bots without a sandbox ({reason}) because require_sandbox is set "
            "(ARENA_REQUIRE_SANDBOX=1); install bubblewrap and allow user namespaces"
        )
    _warn_downgrade(reason)
    return "rlimits"


def _warn_downgrade(reason: str) -> None:
    global _downgrade_warned
    with _detect_lock:
        if _downgrade_warned:
            return
        _downgrade_warned = True
    root = os.geteuid() == 0
    logger.warning(
        "SANDBOX DOWNGRADED: bots run WITHOUT bwrap isolation (%s). Only rlimits%s apply: "
        "bots can use the network and read every file %s can read on this host. "
        "Set ARENA_REQUIRE_SANDBOX=1 to refuse this instead.",
        reason,
        " and a dedicated uid" if root else " (no process-count limit when not root)",
        "any user" if root else "the platform's user",
    )


def _reset_detection_cache() -> None:
    """Forget probe results and the once-per-process warning (for tests)."""
    global _downgrade_warned
    with _detect_lock:
        _probe_results.clear()
        _downgrade_warned = False


def _bwrap_problem(policy: SandboxPolicy) -> str | None:
    """None when bwrap works under ``policy``, else why not (cached per process)."""
    key = (policy.bwrap_path, os.geteuid())
    with _detect_lock:
        if key in _probe_results:
            return _probe_results[key]
    problem = _probe_bwrap(policy)
    with _detect_lock:
        _probe_results.setdefault(key, problem)
        return _probe_results[key]


def _probe_bwrap(policy: SandboxPolicy) -> str | None:
    if not os.path.isfile(policy.bwrap_path) or not os.access(policy.bwrap_path, os.X_OK):
        return f"{policy.bwrap_path} not found"
    try:
        _tools()
    except SandboxError as exc:
        return str(exc)
    true = shutil.which("true", path=_TOOL_PATH)
    if true is None:
        return "no `true` binary to probe with"
    try:
        with tempfile.TemporaryDirectory(prefix="arena-sandbox-probe-") as tmp:
            root = Path(tmp)
            os.chmod(root, 0o755)
            (root / "bot").mkdir(mode=0o755)
            (root / "sock").mkdir(mode=0o700)
            log = root / "probe.log"
            proc = _start(
                [true],
                root / "bot",
                mode="bwrap",
                policy=policy,
                socket_dir=root / "sock",
                log_path=log,
                limits=DEFAULT_LIMITS,
                env_extra={},
                workdir=".",
            )
            try:
                rc = proc.wait(timeout=_PROBE_TIMEOUT)
            except subprocess.TimeoutExpired:
                rc = None
            finally:
                proc.stop(grace=0)
            if rc == 0:
                return None
            output = log.read_text(errors="replace").strip()[:500] if log.exists() else ""
            return f"probe run exited with {rc}: {output or 'no output'}"
    except (OSError, SandboxError) as exc:
        return f"probe run failed: {exc}"


def _tools() -> dict[str, str]:
    """util-linux helpers used to drop privileges and set rlimits after bwrap's setup."""
    found = {}
    for name in ("prlimit", "setpriv"):
        path = shutil.which(name, path=_TOOL_PATH)
        if path is None:
            raise SandboxError(f"`{name}` (util-linux) not found in {_TOOL_PATH}")
        found[name] = path
    return found


# --------------------------------------------------------------------------- uid leases


# Lock file content, fixed width so that it can be overwritten in place (no ftruncate).
_CLEAN = b"clean".ljust(31) + b"\n"


class _UidLease:
    """A host uid reserved for one running bot (flock on a per-uid lock file)."""

    def __init__(self, uid: int, fd: int) -> None:
        self.uid = uid
        self._fd: int | None = fd

    @classmethod
    def acquire(cls, policy: SandboxPolicy) -> _UidLease:
        lock_dir = policy.uid_lock_dir
        _private_dir(lock_dir)
        for uid in range(policy.uid_base, policy.uid_base + policy.uid_count):
            flags = os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW
            fd = os.open(lock_dir / f"{uid}.lock", flags, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            # Nobody holds this uid. Unless its last holder released it cleanly, processes
            # may still run under it (a platform process crashed): clear them out first.
            if os.pread(fd, len(_CLEAN), 0) == _CLEAN or _kill_until_gone(
                lambda uid=uid: _pids_of_uid(uid)
            ):
                os.pwrite(fd, f"in use by pid {os.getpid()}".encode().ljust(31) + b"\n", 0)
                return cls(uid, fd)
            os.close(fd)
            logger.error("sandbox uid %d has unkillable leftover processes; skipping it", uid)
        raise SandboxError(f"all {policy.uid_count} sandbox uids from {policy.uid_base} are in use")

    def release(self, *, clean: bool) -> None:
        """Give the uid back; ``clean``: no process of it is left (next user skips the sweep)."""
        if self._fd is not None:
            if clean:
                os.pwrite(self._fd, _CLEAN, 0)
            os.close(self._fd)
            self._fd = None


def _private_dir(path: Path) -> None:
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    st = os.lstat(path)
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid():
        raise SandboxError(f"{path} must be a directory owned by uid {os.geteuid()}")
    if st.st_mode & 0o077:
        os.chmod(path, 0o700)


# --------------------------------------------------------------------------- /proc helpers


def _all_pids() -> list[int]:
    return [int(name) for name in os.listdir("/proc") if name.isdigit()]


def _stat_fields(pid: int) -> tuple[str, int] | None:
    """(state, ppid) of a process, or None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
    except OSError:
        return None
    rest = data[data.rfind(b")") + 2 :].split()
    return rest[0].decode(), int(rest[1])


def _is_live(pid: int) -> bool:
    """Exists and is not a zombie (zombies hold no resources and cannot act)."""
    fields = _stat_fields(pid)
    return fields is not None and fields[0] not in ("Z", "X")


def _real_uid(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status", "rb") as f:
            for line in f:
                if line.startswith(b"Uid:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def _pids_of_uid(uid: int) -> list[int]:
    return [p for p in _all_pids() if _real_uid(p) == uid and _is_live(p)]


def _pid_ns(pid: int) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/ns/pid")
    except OSError:
        return None


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return [p for p in _all_pids() if (_stat_fields(p) or ("", -1))[1] == pid]


def _signal_pid(pid: int, sig: int, still_member: object) -> None:
    """Signal ``pid`` if, once pinned by a pidfd, it still belongs to the sandbox."""
    try:
        pidfd = os.pidfd_open(pid)
    except OSError:
        return
    try:
        if still_member(pid):  # type: ignore[operator]
            signal.pidfd_send_signal(pidfd, sig)
    except OSError:
        pass
    finally:
        os.close(pidfd)


def _kill_until_gone(members: object, timeout: float = _KILL_TIMEOUT) -> bool:
    """SIGKILL everything ``members()`` lists until it lists nothing; True on success."""
    deadline = time.monotonic() + timeout
    while True:
        pids = members()  # type: ignore[operator]
        if not pids:
            return True
        if time.monotonic() > deadline:
            return False
        member_set = set(pids)
        for pid in pids:
            _signal_pid(pid, signal.SIGKILL, lambda p, s=member_set: p in s and _is_live(p))
        time.sleep(0.01)


# --------------------------------------------------------------------------- the process

_CLK_TCK = os.sysconf("SC_CLK_TCK")
_PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")


@dataclass(frozen=True)
class ResourceUsage:
    """Live usage summed over the sandbox's processes (bwrap's own helpers excluded)."""

    cpu_seconds: float
    rss_bytes: int
    processes: int


class SandboxedProcess:
    """A running sandboxed command. Always :meth:`stop` it (or use it as a context manager)."""

    def __init__(
        self,
        popen: subprocess.Popen[bytes],
        *,
        mode: Mode,
        endpoint: SocketEndpoint,
        log_path: Path,
        limits: Limits,
        policy: SandboxPolicy,
        lease: _UidLease | None,
        log_fd: int,
        log_file: BinaryIO,
        private_tmp: Path | None,
    ) -> None:
        self._popen = popen
        self.mode: Mode = mode
        self.endpoint = endpoint
        self.log_path = log_path
        self.limits = limits
        self._policy = policy
        self._lease = lease
        self._private_tmp = private_tmp
        self._lock = threading.RLock()
        self._stop_lock = threading.Lock()
        self._stopped = False
        self._returncode: int | None = None
        self._rusage: resource.struct_rusage | None = None
        self._pidfd: int | None = os.pidfd_open(popen.pid)
        self._ns_init: int | None = None
        self._ns: str | None = None
        self._own_ns = _pid_ns(os.getpid())
        self.log_truncated = False
        self.log_bytes_dropped = 0
        self._stop_reading = threading.Event()
        self._reader = threading.Thread(
            target=self._pump_log,
            args=(log_fd, log_file),
            name=f"sandbox-log-{popen.pid}",
            daemon=True,
        )
        self._reader.start()

    # ---- introspection

    @property
    def pid(self) -> int:
        """Host pid of the launched process (bwrap's monitor in bwrap mode, else the bot)."""
        return self._popen.pid

    @property
    def uid(self) -> int | None:
        """Host uid the bot runs as when the platform is root (None: the platform's uid)."""
        return None if self._lease is None else self._lease.uid

    @property
    def returncode(self) -> int | None:
        """Exit status once exited (negative: killed by that signal). In bwrap mode a bot
        killed by signal N usually shows as 128+N (bwrap reports the child's status)."""
        return self._poll()

    @property
    def rusage(self) -> resource.struct_rusage | None:
        """``resource.struct_rusage`` of the launched process once reaped, else None.

        In rlimits mode that is the bot (plus children it waited for). In bwrap mode it is
        bwrap's monitor only, without the bot: use :meth:`usage` while it runs instead.
        """
        self._poll()
        return self._rusage

    def alive(self) -> bool:
        return self._poll() is None

    def usage(self) -> ResourceUsage:
        """Snapshot of the live processes of the sandbox (cheap: one /proc scan)."""
        self._find_namespace()
        pids = set(self._members())
        if self.mode == "rlimits" and self._poll() is None:
            pids.add(self._popen.pid)
        pids.discard(self._ns_init or -1)
        cpu = 0.0
        rss = 0
        count = 0
        for pid in pids:
            try:
                with open(f"/proc/{pid}/stat", "rb") as f:
                    data = f.read()
            except OSError:
                continue
            rest = data[data.rfind(b")") + 2 :].split()
            cpu += (int(rest[11]) + int(rest[12])) / _CLK_TCK
            rss += int(rest[21]) * _PAGE_SIZE
            count += 1
        return ResourceUsage(cpu_seconds=cpu, rss_bytes=rss, processes=count)

    # ---- waiting and reaping

    def _poll(self) -> int | None:
        with self._lock:
            if self._returncode is None:
                try:
                    pid, status, usage = os.wait4(self._popen.pid, os.WNOHANG)
                except ChildProcessError:  # reaped behind our back: status unknown
                    logger.warning("sandbox pid %d was reaped elsewhere", self._popen.pid)
                    pid, status, usage = self._popen.pid, 255 << 8, None
                if pid:
                    self._returncode = os.waitstatus_to_exitcode(status)
                    self._rusage = usage
                    self._popen.returncode = self._returncode
                    if self._pidfd is not None:
                        os.close(self._pidfd)
                        self._pidfd = None
            return self._returncode

    def wait(self, timeout: float | None = None) -> int:
        """Wait for the launched process to exit; raises ``subprocess.TimeoutExpired``."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            rc = self._poll()
            if rc is not None:
                return rc
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                raise subprocess.TimeoutExpired(self._popen.args, timeout or 0)
            with self._lock:
                pidfd = self._pidfd
            step = 0.05 if remaining is None else min(0.05, remaining)
            if pidfd is None:
                time.sleep(step)
            else:
                with contextlib.suppress(OSError, ValueError):
                    select.select([pidfd], [], [], step)

    # ---- membership

    def _find_namespace(self) -> None:
        """Remember bwrap's pid-namespace init and the namespace (while it runs)."""
        if self.mode != "bwrap" or self._ns is not None or self._returncode is not None:
            return
        for child in _children(self._popen.pid):
            ns = _pid_ns(child)
            if ns is not None and ns != self._own_ns:
                self._ns_init, self._ns = child, ns
                return

    def _is_member(self, pid: int) -> bool:
        if pid == os.getpid():
            return False
        if self._ns is not None:  # nothing leaves a pid namespace; cheaper than the uid
            return _pid_ns(pid) == self._ns and _is_live(pid)
        if self._lease is not None:
            return _real_uid(pid) == self._lease.uid and _is_live(pid)
        return False

    def _members(self) -> list[int]:
        """Live processes of the sandbox other than the launched process itself."""
        if self._lease is None and self._ns is None:
            return []
        return [p for p in _all_pids() if p != self._popen.pid and self._is_member(p)]

    def _signal_tree(self, sig: int, *, include_launcher: bool) -> int:
        """Signal the sandbox's processes; returns how many were targeted."""
        count = 0
        with self._lock:
            launcher_running = self._returncode is None and self._pidfd is not None
            if launcher_running and (include_launcher or self.mode == "rlimits"):
                count += 1
                with contextlib.suppress(OSError):
                    os.killpg(self._popen.pid, sig)
                with contextlib.suppress(OSError):
                    signal.pidfd_send_signal(self._pidfd, sig)  # type: ignore[arg-type]
        for pid in self._members():
            if sig == signal.SIGTERM and pid == self._ns_init:
                continue  # bwrap's init: it exits once the bot does
            count += 1
            _signal_pid(pid, sig, self._is_member)
        return count

    def _tree_gone(self) -> bool:
        return self._poll() is not None and not self._members()

    # ---- stopping

    def stop(self, grace: float | None = None) -> int | None:
        """Kill the whole process tree and reap it (idempotent, thread-safe).

        SIGTERM to the bot's processes, up to ``grace`` seconds (policy default) for them to
        exit, then SIGKILL to everything left. Returns :attr:`returncode`.
        """
        with self._stop_lock:
            if self._stopped:
                return self._returncode
            grace = self._policy.stop_grace_seconds if grace is None else grace
            gone = False
            try:
                self._find_namespace()
                gone = self._tree_gone()
                if (
                    not gone
                    and grace > 0
                    and self._signal_tree(signal.SIGTERM, include_launcher=False)
                ):
                    deadline = time.monotonic() + grace
                    while not (gone := self._tree_gone()) and time.monotonic() < deadline:
                        time.sleep(0.01)
                deadline = time.monotonic() + _KILL_TIMEOUT
                while not gone and time.monotonic() < deadline:
                    self._signal_tree(signal.SIGKILL, include_launcher=True)
                    with contextlib.suppress(subprocess.TimeoutExpired):
                        self.wait(timeout=0.02)
                    gone = self._tree_gone()
                if not gone:
                    logger.error(
                        "sandbox pid %d: processes survived SIGKILL: %s",
                        self.pid,
                        self._members() or [self.pid],
                    )
            finally:
                self._stopped = True
                self._stop_reading.set()
                self._reader.join(timeout=_KILL_TIMEOUT)
                if self._lease is not None and gone:
                    self._lease.release(clean=True)  # a dirty uid stays locked until we exit
                if self._private_tmp is not None:
                    shutil.rmtree(self._private_tmp, ignore_errors=True)
            return self._returncode

    def __enter__(self) -> SandboxedProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ---- log capture

    def _pump_log(self, fd: int, out: BinaryIO) -> None:
        """Copy the bot's output to the log up to the cap, then keep draining the pipe."""
        cap = self.limits.log_bytes
        written = 0
        drain_deadline: float | None = None
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        try:
            with out:
                while True:
                    if self._stop_reading.is_set() and drain_deadline is None:
                        drain_deadline = time.monotonic() + 1.0
                    if drain_deadline is not None and time.monotonic() > drain_deadline:
                        break
                    if not poller.poll(100):
                        if drain_deadline is not None:
                            break  # tree is dead and nothing is pending
                        continue
                    chunk = os.read(fd, 65536)
                    if not chunk:
                        break
                    room = cap - written
                    if room > 0:
                        out.write(chunk[:room])
                        written += min(room, len(chunk))
                    if len(chunk) > room:
                        self.log_bytes_dropped += len(chunk) - max(room, 0)
                        if not self.log_truncated:
                            self.log_truncated = True
                            note = f"\n[arena: log truncated at {cap} bytes; rest discarded]\n"
                            out.write(note.encode())
                if self.log_truncated:
                    out.write(f"[arena: {self.log_bytes_dropped} bytes discarded]\n".encode())
        except OSError:
            logger.exception("sandbox pid %d: log capture failed", self.pid)
            with contextlib.suppress(OSError):
                while os.read(fd, 65536):  # never leave the bot blocked on a full pipe
                    pass
        finally:
            os.close(fd)


# --------------------------------------------------------------------------- launching

_spawn_queue: queue.SimpleQueue[tuple[Callable[[], object], Future[object]]] = queue.SimpleQueue()
_spawn_thread: threading.Thread | None = None
_spawn_lock = threading.Lock()


def _spawn(start: Callable[[], _T]) -> _T:
    """Run ``start`` (a Popen) on one long-lived thread.

    bwrap's ``--die-with-parent`` is PR_SET_PDEATHSIG, which fires when the *thread* that
    forked bwrap exits, not the process: a bot launched from a short-lived worker thread
    would be SIGKILLed as soon as that thread ended. Forking from a thread that lives as
    long as the process keeps the signal for what it is meant for: the platform dying.
    """
    global _spawn_thread
    with _spawn_lock:
        if _spawn_thread is None or not _spawn_thread.is_alive():
            _spawn_thread = threading.Thread(
                target=_spawn_loop, name="arena-sandbox-spawner", daemon=True
            )
            _spawn_thread.start()
        thread = _spawn_thread
    if threading.current_thread() is thread:
        return start()
    future: Future[object] = Future()
    _spawn_queue.put((start, future))
    return future.result()  # type: ignore[return-value]


_PR_SET_PDEATHSIG = 1


@functools.cache
def _prctl() -> Callable[..., int]:
    return ctypes.CDLL(None, use_errno=True).prctl


def _die_with(parent: int) -> Callable[[], None]:
    """A ``preexec_fn`` closing the gap in bwrap's ``--die-with-parent``: bwrap makes that
    call only once it runs, so a platform killed between the fork and that moment left the
    sandbox running for good. The child asks for SIGKILL on parent death before exec (it is
    kept across the exec of bwrap, which is not set-uid) and quits if the parent has already
    gone. Resolved here, so the forked child only makes two system calls."""
    prctl, sigkill = _prctl(), int(signal.SIGKILL)

    def preexec() -> None:
        prctl(_PR_SET_PDEATHSIG, sigkill)
        if os.getppid() != parent:
            os._exit(1)

    return preexec


def _spawn_loop() -> None:
    while True:
        start, future = _spawn_queue.get()
        if future.set_running_or_notify_cancel():
            try:
                future.set_result(start())
            except BaseException as exc:
                future.set_exception(exc)


def launch(
    command: Sequence[str],
    bot_dir: Path,
    *,
    socket_dir: Path,
    log_path: Path,
    limits: Limits = DEFAULT_LIMITS,
    env_extra: Mapping[str, str] | None = None,
    workdir: str = ".",
    policy: SandboxPolicy | None = None,
    socket_name: str = DEFAULT_SOCKET_NAME,
) -> SandboxedProcess:
    """Start ``command`` sandboxed and return a handle that must be stopped.

    command
        argv; no shell. Relative paths are relative to the working directory (the bot
        directory, or ``workdir`` inside it); bare names are looked up on the sandbox PATH,
        which starts with the platform's Python ``bin`` directory.
    bot_dir
        The bot's directory: read-only at ``/bot`` (bwrap) and the working directory.
    socket_dir
        A per-bot host directory created by the caller; writable by the bot (at
        ``/run/arena`` under bwrap). Use :func:`socket_endpoint` or ``.endpoint`` for paths.
    log_path
        Receives stdout+stderr, capped at ``limits.log_bytes`` (truncated first).
    env_extra
        Added to the minimal environment (PATH, HOME, TMPDIR, LANG,
        PYTHONDONTWRITEBYTECODE); nothing else of the platform's environment is passed.
    """
    policy = SandboxPolicy.from_env() if policy is None else policy
    mode = resolve_mode(policy)
    return _start(
        command,
        bot_dir,
        mode=mode,
        policy=policy,
        socket_dir=socket_dir,
        log_path=log_path,
        limits=limits,
        env_extra=env_extra or {},
        workdir=workdir,
        socket_name=socket_name,
    )


def _runtime_paths(policy: SandboxPolicy) -> list[str]:
    """Host paths bound read-only at the same place: Python runtime, site dirs, `arena`."""
    import arena

    candidates = [sys.base_prefix, sys.prefix, *site.getsitepackages()]
    candidates += [p for p in arena.__path__ if os.path.isdir(p)]
    candidates += list(policy.extra_ro_paths)
    covered = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc"]
    result: list[str] = []
    for path in sorted({os.path.realpath(p) for p in candidates if os.path.exists(p)}):
        if any(path == c or path.startswith(c.rstrip("/") + "/") for c in covered + result):
            continue
        if path == "/":
            raise SandboxError("refusing to bind / into the sandbox")
        result.append(path)
    return result


def _bot_env(env_extra: Mapping[str, str], home: str) -> dict[str, str]:
    python_bin = os.path.dirname(sys.executable)
    env = {
        "PATH": f"{python_bin}:/usr/local/bin:/usr/bin:/bin",
        "HOME": home,
        "TMPDIR": home,
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    for key, value in env_extra.items():
        if not key or "=" in key or "\0" in key or "\0" in value:
            raise ValueError(f"bad environment entry {key!r}")
        env[key] = value
    return env


def _check_reachable(path: Path, *, ancestors: bool) -> None:
    """As root the bot runs under another uid: it must be able to read ``path``."""
    chain = [path, *path.parents] if ancestors else [path]
    for p in chain:
        mode = os.stat(p).st_mode
        need = 0o005 if p == path else 0o001
        if mode & need != need:
            raise SandboxError(
                f"{p} is not accessible to the sandbox uid (mode {stat.filemode(mode)}); "
                "bot files must be world-readable (chmod -R o+rX)"
            )


def _bwrap_argv(
    bwrap: str,
    *,
    policy: SandboxPolicy,
    bot_dir: Path,
    socket_dir: Path,
    inside_cwd: PurePosixPath,
    env: Mapping[str, str],
    limits: Limits,
    root: bool,
    inner: list[str],
) -> list[str]:
    a = [
        "--unshare-pid",
        "--unshare-net",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--hostname",
        "arena-bot",
        "--die-with-parent",
        "--new-session",
    ]
    if not root:
        a += ["--unshare-user", "--disable-userns"]
    # The private /dev, /proc and /tmp first: a runtime path under /tmp (a checkout or a venv
    # there) is then bound on top of the tmpfs instead of being hidden by it.
    a += ["--dev", "/dev", "--proc", "/proc"]
    a += ["--perms", "1777", "--size", str(limits.tmp_bytes), "--tmpfs", "/tmp"]
    a += ["--perms", "1777", "--size", str(_SHM_BYTES), "--tmpfs", "/dev/shm"]
    made = {"/", "/dev", "/dev/shm", "/proc", "/tmp"}

    def parents(dest: str) -> None:
        for parent in reversed(PurePosixPath(dest).parents):
            if str(parent) not in made:
                made.add(str(parent))
                a.extend(["--perms", "0755", "--dir", str(parent)])

    a += ["--ro-bind", "/usr", "/usr"]
    for top in _TOP_LEVEL_RUNTIME:
        if os.path.islink(top):
            a += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            a += ["--ro-bind", top, top]
    for path in _ETC_PATHS:
        if os.path.exists(path):
            parents(path)
            a += ["--ro-bind", path, path]
    for path in _runtime_paths(policy):
        parents(path)
        a += ["--ro-bind", path, path]
    a += ["--ro-bind", str(bot_dir), str(BOT_DIR_INSIDE)]
    parents(str(SOCKET_DIR_INSIDE))
    a += ["--bind", str(socket_dir), str(SOCKET_DIR_INSIDE)]
    # bwrap's own / and /dev are tmpfs owned by the bot's uid when there is a user
    # namespace: freeze them (non-recursive, so the mounts above keep their modes).
    a += ["--remount-ro", "/dev", "--remount-ro", "/"]
    a += ["--chdir", str(inside_cwd), "--clearenv"]
    for key, value in env.items():
        a += ["--setenv", key, value]
    if root:
        # Only what setpriv needs to switch to the bot's uid; it drops them all again.
        a += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP"]
    return [bwrap, *a, "--", *inner]


def _start(
    command: Sequence[str],
    bot_dir: Path,
    *,
    mode: Mode,
    policy: SandboxPolicy,
    socket_dir: Path,
    log_path: Path,
    limits: Limits,
    env_extra: Mapping[str, str],
    workdir: str,
    socket_name: str = DEFAULT_SOCKET_NAME,
) -> SandboxedProcess:
    command = [str(c) for c in command]
    if not command:
        raise ValueError("empty command")
    bot_dir = Path(bot_dir).resolve()
    socket_dir = Path(socket_dir).resolve()
    rel = PurePosixPath(workdir)
    if rel.is_absolute() or ".." in rel.parts:
        raise ValueError(f"workdir must be relative to the bot directory: {workdir!r}")
    host_cwd = bot_dir / rel
    for path in (bot_dir, host_cwd, socket_dir):
        if not path.is_dir():
            raise SandboxError(f"{path} is not a directory")
    if socket_dir == bot_dir or bot_dir in socket_dir.parents:
        raise SandboxError("socket_dir must not be inside bot_dir")
    log_path = Path(log_path).absolute()
    if socket_dir in log_path.resolve().parents:
        # The bot can write there: it could swap the log for a symlink the platform follows.
        raise SandboxError("log_path must not be inside socket_dir (the bot can write there)")
    tools = _tools()
    root = os.geteuid() == 0
    endpoint = endpoint_for(socket_dir, mode, socket_name)

    lease: _UidLease | None = None
    private_tmp: Path | None = None
    args_fd: int | None = None
    read_fd = write_fd = -1
    log_file: BinaryIO | None = None
    try:
        if root:
            _check_reachable(bot_dir, ancestors=mode == "rlimits")
            if mode == "rlimits":
                _check_reachable(socket_dir.parent, ancestors=True)
            lease = _UidLease.acquire(policy)
            os.chown(socket_dir, lease.uid, lease.uid)
            os.chmod(socket_dir, 0o700)
        drop = [tools["setpriv"]]
        if lease is not None:
            uid = str(lease.uid)
            drop += ["--reuid", uid, "--regid", uid, "--clear-groups", "--inh-caps=-all"]
            drop += ["--bounding-set=-all"]
        drop += ["--no-new-privs", "--"]
        # NPROC counts per uid (per user namespace): only meaningful with a uid of our own.
        nproc = lease is not None or mode == "bwrap"
        limit = [tools["prlimit"], *limits.prlimit_args(nproc=nproc), "--"]
        inner = [*drop, *limit, *command]

        if mode == "bwrap":
            env = _bot_env(env_extra, "/tmp")
            argv = _bwrap_argv(
                policy.bwrap_path,
                policy=policy,
                bot_dir=bot_dir,
                socket_dir=socket_dir,
                inside_cwd=BOT_DIR_INSIDE / rel,
                env=env,
                limits=limits,
                root=root,
                inner=inner,
            )
            # Hand bwrap its arguments through a memfd so that host paths do not show up in
            # the sandbox's /proc/1/cmdline.
            split = argv.index("--")
            args_fd = os.memfd_create("bwrap-args", 0)
            os.write(args_fd, b"".join(arg.encode() + b"\0" for arg in argv[1:split]))
            os.lseek(args_fd, 0, os.SEEK_SET)
            argv = [argv[0], "--args", str(args_fd), *argv[split:]]
            popen_env = {"PATH": _TOOL_PATH, "LANG": "C.UTF-8"}
            popen_cwd = "/"
            pass_fds: tuple[int, ...] = (args_fd,)
        else:
            private_tmp = Path(tempfile.mkdtemp(prefix="arena-bot-tmp-"))
            if lease is not None:
                os.chown(private_tmp, lease.uid, lease.uid)
            argv = inner
            popen_env = _bot_env(env_extra, str(private_tmp))
            popen_cwd = str(host_cwd)
            pass_fds = ()

        log_file = open(log_path, "wb", buffering=0)  # noqa: SIM115 (closed by the reader)
        read_fd, write_fd = os.pipe2(os.O_CLOEXEC)
        popen = _spawn(
            functools.partial(
                subprocess.Popen,
                argv,
                stdin=subprocess.DEVNULL,
                stdout=write_fd,
                stderr=write_fd,
                cwd=popen_cwd,
                env=popen_env,
                start_new_session=True,
                close_fds=True,
                pass_fds=pass_fds,
                preexec_fn=_die_with(os.getpid()) if mode == "bwrap" else None,
            )
        )
    except BaseException:
        if log_file is not None:
            log_file.close()
        for fd in (read_fd, write_fd):
            if fd >= 0:
                os.close(fd)
        if lease is not None:
            lease.release(clean=False)  # make the next holder sweep, to be safe
        if private_tmp is not None:
            shutil.rmtree(private_tmp, ignore_errors=True)
        raise
    finally:
        if args_fd is not None:
            os.close(args_fd)
    os.close(write_fd)
    proc = SandboxedProcess(
        popen,
        mode=mode,
        endpoint=endpoint,
        log_path=log_path,
        limits=limits,
        policy=policy,
        lease=lease,
        log_fd=read_fd,
        log_file=log_file,
        private_tmp=private_tmp,
    )
    logger.debug("sandbox (%s) pid %d started: %s", mode, proc.pid, command)
    return proc
