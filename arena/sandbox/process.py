"""The handle of a running sandbox: waiting, reaping, usage, stopping and log capture."""

from __future__ import annotations

import contextlib
import logging
import os
import resource
import select
import shutil
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from .cgroups import BotCgroup, Control
from .copies import remove_copy
from .endpoint import open_namespace_dir, open_socket, present
from .logpump import _LogPump
from .policy import TMP_INSIDE, Mode, UnsafeSocket
from .procfs import (
    _KILL_TIMEOUT,
    _all_pids,
    _children,
    _cpu_and_rss,
    _is_live,
    _pid_ns,
    _real_uid,
    _signal_pid,
)
from .request import _LaunchRequest
from .uids import _UidLease

logger = logging.getLogger(__package__)  # the package's one logger, named as before the split


@dataclass(frozen=True)
class ResourceUsage:
    """Live usage summed over the sandbox's processes (bwrap's own helpers excluded, but
    for the CPU time a cpu group counts: theirs is a few milliseconds)."""

    cpu_seconds: float
    rss_bytes: int
    processes: int


class SandboxedProcess:
    """A running sandboxed command. Always :meth:`stop` it (or use it as a context manager)."""

    def __init__(
        self,
        popen: subprocess.Popen[bytes],
        request: _LaunchRequest,
        *,
        lease: _UidLease | None,
        log_fd: int,
        log_file: BinaryIO,
        private_tmp: Path | None,
        private_copy: Path | None,
        tmp_fd: int | None,
        bot_address: str,
        cgroup: BotCgroup | None,
    ) -> None:
        self._popen = popen
        self.mode: Mode = request.mode
        self.bot_address = bot_address
        self._socket_name = request.socket_name
        self._tmp_fd = tmp_fd  # the bot's /tmp: opened at launch (rlimits) or once set up
        self._socket_fd: int | None = None
        self.log_path = request.log_path
        self.limits = request.limits
        self._policy = request.policy
        self._lease = lease
        self._cgroup = cgroup
        self._private_tmp = private_tmp
        self._private_copy = private_copy
        self._lock = threading.RLock()
        self._stop_lock = threading.Lock()
        self._stopped = False
        self._returncode: int | None = None
        self._oom_kills: int | None = None  # read as the cgroup is removed
        self._rusage: resource.struct_rusage | None = None
        self._pidfd: int | None = os.pidfd_open(popen.pid)
        self._ns_init: int | None = None
        self._ns: str | None = None
        self._own_ns = _pid_ns(os.getpid())
        self._log = _LogPump(log_fd, log_file, request.limits.log_bytes, popen.pid)

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
    def resource_control(self) -> Control:
        """What enforces memory and task limits: ``cgroup2``/``cgroup1`` (the whole sandbox,
        shared memory and tmpfs included), or ``rlimits`` (per process; see docs/sandbox.md)."""
        return "rlimits" if self._cgroup is None else self._cgroup.version

    def oom_kills(self) -> int | None:
        """How many of the bot's processes its memory limit killed (its memory cgroup's OOM
        counter, ``cgroups.BotCgroup.oom_kills``); None without a memory cgroup."""
        if self._cgroup is None:
            return None
        # once stopped, the group (named after the uid, which goes to the next bot) is gone
        return self._oom_kills if self._stopped else self._cgroup.oom_kills()

    @property
    def log_truncated(self) -> bool:
        """Whether the bot wrote more than ``limits.log_bytes`` (in this launch)."""
        return self._log.truncated

    @property
    def log_bytes_dropped(self) -> int:
        return self._log.dropped

    def mark_log(self, label: str) -> None:
        """Put the platform's ``label`` in the log, after what the bot wrote so far (see
        ``logpump``: a line the bot cannot forge)."""
        self._log.mark(label)

    def settle_log(self, timeout: float) -> bool:
        """After the bot exited: wait (up to ``timeout``) until everything it wrote is in its
        log file, so its last line can be read; False if it is still open."""
        return self._log.settle(timeout)

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
        """Snapshot of the live processes of the sandbox (cheap: one /proc scan). With a
        cpu group, its CPU time is the group's counter: every process the bot ever ran, also
        those that exited (a bot's short-lived workers, killed spinners), which a /proc
        scan misses; without, that of the processes alive now."""
        self._find_namespace()
        pids = set(self._members())
        if self.mode == "rlimits" and self._poll() is None:
            pids.add(self._popen.pid)
        pids.discard(self._ns_init or -1)
        cpu = 0.0
        rss = 0
        count = 0
        for pid in pids:
            sample = _cpu_and_rss(pid)
            if sample is None:
                continue
            cpu += sample[0]
            rss += sample[1]
            count += 1
        counted = None if self._cgroup is None or self._stopped else self._cgroup.cpu_seconds()
        return ResourceUsage(
            cpu_seconds=cpu if counted is None else counted, rss_bytes=rss, processes=count
        )

    def set_turn(self, on_turn: bool) -> None:
        """Whether it is the bot's turn: its CPU weight and quota while the referee waits for
        it, the least weight and a small quota otherwise (cgroups.py; nothing without a cpu
        cgroup)."""
        if self._cgroup is not None and not self._stopped:
            self._cgroup.set_turn(on_turn)

    # ---- the bot's socket

    def socket_ready(self) -> bool:
        """Whether the bot has put something at its socket path (not yet checked: see
        :meth:`connect_address`)."""
        with self._lock:  # stop() closes the fd under it
            dir_fd = self._bot_tmp_fd()
            return dir_fd is not None and present(dir_fd, self._socket_name)

    def connect_address(self) -> str:
        """A gRPC target (``unix:/proc/self/fd/N``) for the bot's socket, checked to be a
        socket owned by the bot (never a symlink it planted); valid until :meth:`stop` or
        the next call, so close the channel first (the fd number is reused afterwards).
        Raises :class:`UnsafeSocket`."""
        owner = os.geteuid() if self._lease is None else self._lease.uid
        with self._lock:  # stop() closes the fds under it
            dir_fd = self._bot_tmp_fd()
            if dir_fd is None:
                raise UnsafeSocket("the sandbox is not running or not set up yet")
            fd = open_socket(dir_fd, self._socket_name, owner)
            self._close_fds(tmp=False)
            self._socket_fd = fd
        return f"unix:/proc/self/fd/{fd}"

    def _bot_tmp_fd(self) -> int | None:
        with self._lock:
            if self._tmp_fd is None and self.mode == "bwrap" and not self._stopped:
                self._find_namespace()
                if self._ns_init is not None:
                    self._tmp_fd = open_namespace_dir(self._ns_init, TMP_INSIDE)
            return self._tmp_fd

    def _close_fds(self, *, tmp: bool) -> None:
        for name in ("_socket_fd", "_tmp_fd") if tmp else ("_socket_fd",):
            fd = getattr(self, name)
            if fd is not None:
                os.close(fd)
                setattr(self, name, None)

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
        if self._cgroup is not None:  # nothing the bot starts can leave its groups
            return self._cgroup.contains(pid) and _is_live(pid)
        if self._ns is not None:  # nothing leaves a pid namespace; cheaper than the uid
            return _pid_ns(pid) == self._ns and _is_live(pid)
        if self._lease is not None:
            return _real_uid(pid) == self._lease.uid and _is_live(pid)
        return False

    def _members(self) -> list[int]:
        """Live processes of the sandbox other than the launched process itself."""
        if self._cgroup is not None:
            pids = self._cgroup.pids()
            return [p for p in pids if p != self._popen.pid and _is_live(p)]
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
                gone = self._kill_tree(grace)
            finally:
                self._stopped = True
                with self._lock:
                    self._close_fds(tmp=True)
                self._log.finish(timeout=_KILL_TIMEOUT)
                if self._cgroup is not None:
                    self._oom_kills = self._cgroup.oom_kills()
                    gone = self._cgroup.remove() and gone
                if self._lease is not None and gone:
                    self._lease.release(clean=True)  # a dirty uid stays locked until we exit
                if self._private_tmp is not None:
                    shutil.rmtree(self._private_tmp, ignore_errors=True)
                remove_copy(self._private_copy)
            return self._returncode

    def _kill_tree(self, grace: float) -> bool:
        """SIGTERM, ``grace`` seconds to exit, then SIGKILL until nothing is left; True when
        the tree is gone (the uid is only clean for the next bot then)."""
        self._find_namespace()
        gone = self._tree_gone()
        if not gone and grace > 0 and self._signal_tree(signal.SIGTERM, include_launcher=False):
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
        return gone

    def __enter__(self) -> SandboxedProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
