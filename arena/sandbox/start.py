"""Starting a checked request: uid lease, privilege drop, rlimits, bwrap, log pipe."""

from __future__ import annotations

import contextlib
import logging
import os
import platform
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from .bwrap import _bot_env, _bwrap_argv
from .cgroups import BotCgroup, hierarchies, joiner
from .copies import make_copy, remove_copy
from .endpoint import open_dir
from .policy import TMP_INSIDE
from .process import SandboxedProcess
from .request import _TOOL_PATH, _LaunchRequest
from .spawner import _spawn, die_with, fresh_session_keyring
from .uids import _check_reachable, _private_tmp_path, _UidLease

logger = logging.getLogger(__package__)  # the package's one logger, named as before the split


@dataclass(frozen=True)
class _ExecPlan:
    """How to exec the launcher in one mode: argv, environment, directory, inherited fds."""

    argv: list[str]
    env: dict[str, str]
    cwd: str
    pass_fds: tuple[int, ...] = ()
    preexec_fn: Callable[[], None] | None = None


def _start(request: _LaunchRequest) -> SandboxedProcess:
    """Start ``request``; if that fails, undo what was set up (uid lease, private /tmp, fds)."""
    with contextlib.ExitStack() as undo:
        lease = _lease_uid(request, undo)
        cgroup = None if lease is None else _cgroup(request, lease, undo)
        private_tmp = None if request.mode == "bwrap" else _private_tmp(request, lease, undo)
        tmp_fd = None if private_tmp is None else open_dir(str(private_tmp))
        if tmp_fd is not None:
            undo.callback(os.close, tmp_fd)
        address = f"unix:{private_tmp or TMP_INSIDE}/{request.socket_name}"
        inner = _inner_command(request, lease, address, cgroup=cgroup is not None)
        env_extra = request.bot_env_extra(address)
        copy = None
        with contextlib.ExitStack() as until_spawned:
            join = _join_step(cgroup, until_spawned)
            if lease is not None and request.build:
                _hand_over(request.bot_dir, lease.uid)
            if request.mode == "bwrap":
                private = request.policy.close_channels and not request.build
                copy = _private_copy(request, undo) if private else None
                plan = _bwrap_plan(
                    request, copy or request.bot_dir, inner, env_extra, join, until_spawned
                )
            else:
                assert private_tmp is not None  # made above in every mode but bwrap
                plan = _rlimits_plan(request, inner, env_extra, join, private_tmp)
            log_file, read_fd, write_fd = _log_pipe(request, undo)
            popen = _popen(plan, write_fd)
        undo.pop_all()
    os.close(write_fd)
    proc = SandboxedProcess(
        popen,
        request,
        lease=lease,
        log_fd=read_fd,
        log_file=log_file,
        private_tmp=private_tmp,
        private_copy=copy,
        tmp_fd=tmp_fd,
        bot_address=address,
        cgroup=cgroup,
    )
    logger.debug("sandbox (%s) pid %d started: %s", request.mode, proc.pid, request.command)
    return proc


def _lease_uid(request: _LaunchRequest, undo: contextlib.ExitStack) -> _UidLease | None:
    """As root, a uid of the bot's own (None otherwise)."""
    if not request.as_root:
        return None
    _check_reachable(request.bot_dir, ancestors=request.mode == "rlimits")
    lease = _UidLease.acquire(request.policy)
    undo.callback(lease.release, clean=False)  # make the next holder sweep, to be safe
    return lease


def _cgroup(
    request: _LaunchRequest, lease: _UidLease, undo: contextlib.ExitStack
) -> BotCgroup | None:
    """The bot's own memory and pids groups, when the host has them (None: rlimits only)."""
    where = hierarchies(request.policy)
    if where is None:
        return None
    cgroup = BotCgroup(where, request.policy, lease.uid)
    cgroup.create(request.limits)
    undo.callback(cgroup.remove)
    return cgroup


def _private_copy(request: _LaunchRequest, undo: contextlib.ExitStack) -> Path:
    """bwrap mode: the bot's files as a fresh copy of their own (see copies.py)."""
    copy = make_copy(request.bot_dir, request.policy)
    undo.callback(remove_copy, copy)
    return copy


def _hand_over(folder: Path, uid: int) -> None:
    """A build's folder becomes the bot uid's to write (links changed, never followed)."""
    os.lchown(folder, uid, uid)
    for top, dirs, files in os.walk(folder):
        for name in dirs + files:
            os.lchown(os.path.join(top, name), uid, uid)


def _join_step(
    cgroup: BotCgroup | None, until_spawned: contextlib.ExitStack
) -> Callable[[], None] | None:
    """The preexec step that puts the child in the bot's groups (fds open until the fork)."""
    if cgroup is None:
        return None
    fds = cgroup.procs_fds()
    for fd in fds:
        until_spawned.callback(os.close, fd)
    return joiner(fds)


def _private_tmp(
    request: _LaunchRequest, lease: _UidLease | None, undo: contextlib.ExitStack
) -> Path:
    """rlimits mode: the bot's private tmp dir (and socket dir) on the host. As root it sits
    in a root-owned folder, so the bot cannot rename it away; it is named after the uid, so
    the sweep finds what a killed platform left."""
    if lease is None:
        path = Path(tempfile.mkdtemp(prefix="arena-bot-tmp-"))
    else:
        path = _private_tmp_path(request.policy, lease.uid)
        shutil.rmtree(path, ignore_errors=True)
        path.mkdir(mode=0o700)
        os.chown(path, lease.uid, lease.uid)
    undo.callback(shutil.rmtree, path, ignore_errors=True)
    return path


def _inner_command(
    request: _LaunchRequest, lease: _UidLease | None, address: str, *, cgroup: bool
) -> list[str]:
    """The bot's command behind setpriv (to the leased uid, no new privileges) and prlimit
    (RLIMIT_NPROC only without a pids cgroup to count the tasks; a build under a memory
    cgroup has no RLIMIT_DATA, so a compiler's growing heap meets the cgroup's OOM kill, which
    the build names, not an allocation failure that reads as any other failed build)."""
    nproc = not cgroup
    drop = [request.tools["setpriv"]]
    if lease is not None:
        uid = str(lease.uid)
        drop += ["--reuid", uid, "--regid", uid, "--clear-groups", "--inh-caps=-all"]
        drop += ["--ambient-caps=-all", "--bounding-set=-all"]
    drop += ["--no-new-privs", "--"]
    # NPROC counts per uid (per user namespace): only meaningful with a uid of our own.
    nproc = nproc and (lease is not None or request.mode == "bwrap")
    data = not (cgroup and request.build)
    limit = [request.tools["prlimit"], *request.limits.prlimit_args(nproc=nproc, data=data), "--"]
    return [*drop, *limit, *request.bot_command(address)]


def _bwrap_plan(
    request: _LaunchRequest,
    bot_files: Path,
    inner: list[str],
    env_extra: dict[str, str],
    join: Callable[[], None] | None,
    until_spawned: contextlib.ExitStack,
) -> _ExecPlan:
    """bwrap with a bare environment, its arguments (so that host paths do not show up in
    the sandbox's /proc/1/cmdline) and its seccomp filter in memfds."""
    options, command = _bwrap_argv(request, bot_files, inner, env_extra)
    args_fd = _memfd("bwrap-args", b"".join(arg.encode() + b"\0" for arg in options))
    until_spawned.callback(os.close, args_fd)
    fds, seccomp = [args_fd], []
    if request.seccomp_filter is not None:
        fds.append(_memfd("bwrap-seccomp", request.seccomp_filter))
        until_spawned.callback(os.close, fds[-1])
        seccomp = ["--seccomp", str(fds[-1])]
    else:
        machine = platform.machine()
        logger.warning(
            "no seccomp filter for %s: bots can reach kernel keys, file locks and page-cache"
            " state%s",
            machine,
            ", and create user namespaces" if request.as_root else "",
        )
    return _ExecPlan(
        argv=[request.policy.bwrap_path, "--args", str(args_fd), *seccomp, "--", *command],
        env={"PATH": _TOOL_PATH, "LANG": "C.UTF-8"},
        cwd="/",
        pass_fds=tuple(fds),
        preexec_fn=_steps(join, die_with(os.getpid()), _keyring_step(request)),
    )


def _memfd(name: str, data: bytes) -> int:
    """A memfd holding ``data``, positioned at its start."""
    fd = os.memfd_create(name, 0)
    os.write(fd, data)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _rlimits_plan(
    request: _LaunchRequest,
    inner: list[str],
    env_extra: dict[str, str],
    join: Callable[[], None] | None,
    private_tmp: Path,
) -> _ExecPlan:
    """The command run directly in the bot's directory, with its private temporary dir."""
    env = _bot_env(env_extra, str(private_tmp))
    preexec = _steps(join, _keyring_step(request))
    return _ExecPlan(argv=inner, env=env, cwd=str(request.host_cwd), preexec_fn=preexec)


def _keyring_step(request: _LaunchRequest) -> Callable[[], None] | None:
    return fresh_session_keyring() if request.policy.close_channels else None


def _steps(*steps: Callable[[], None] | None) -> Callable[[], None]:
    """One ``preexec_fn`` running ``steps`` in order (None: skipped)."""
    todo = [step for step in steps if step is not None]

    def run() -> None:
        for step in todo:
            step()

    return run


def _log_pipe(request: _LaunchRequest, undo: contextlib.ExitStack) -> tuple[BinaryIO, int, int]:
    """The log file (appended to or truncated, never through a symlink) and a pipe for the
    bot's output: (log file, read end, write end)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
    flags |= os.O_APPEND if request.append_log else os.O_TRUNC
    log_file = os.fdopen(os.open(request.log_path, flags, 0o644), "wb", buffering=0)
    undo.callback(log_file.close)
    read_fd, write_fd = os.pipe2(os.O_CLOEXEC)
    undo.callback(os.close, read_fd)
    undo.callback(os.close, write_fd)
    return log_file, read_fd, write_fd


def _popen(plan: _ExecPlan, output_fd: int) -> subprocess.Popen[bytes]:
    """Fork ``plan`` from the spawner thread in a session of its own, output to ``output_fd``."""

    def start() -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            plan.argv,
            stdin=subprocess.DEVNULL,
            stdout=output_fd,
            stderr=output_fd,
            cwd=plan.cwd,
            env=plan.env,
            start_new_session=True,
            close_fds=True,
            pass_fds=plan.pass_fds,
            preexec_fn=plan.preexec_fn,
        )

    return _spawn(start)
