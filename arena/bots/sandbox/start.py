"""Starting a checked request: uid lease, privilege drop, rlimits, bwrap, log pipe."""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from .bwrap import _bot_env, _bwrap_argv
from .endpoint import open_dir
from .policy import TMP_INSIDE
from .process import SandboxedProcess
from .request import _TOOL_PATH, _LaunchRequest
from .spawner import _spawn, die_with
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
        private_tmp = None if request.mode == "bwrap" else _private_tmp(request, lease, undo)
        tmp_fd = None if private_tmp is None else open_dir(str(private_tmp))
        if tmp_fd is not None:
            undo.callback(os.close, tmp_fd)
        address = f"unix:{private_tmp or TMP_INSIDE}/{request.socket_name}"
        inner = _inner_command(request, lease, address)
        env_extra = request.bot_env_extra(address)
        with contextlib.ExitStack() as until_spawned:
            if request.mode == "bwrap":
                plan = _bwrap_plan(request, inner, env_extra, until_spawned)
            else:
                plan = _rlimits_plan(request, inner, env_extra, private_tmp)
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
        tmp_fd=tmp_fd,
        bot_address=address,
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


def _inner_command(request: _LaunchRequest, lease: _UidLease | None, address: str) -> list[str]:
    """The bot's command behind setpriv (to the leased uid, no new privileges) and prlimit."""
    drop = [request.tools["setpriv"]]
    if lease is not None:
        uid = str(lease.uid)
        drop += ["--reuid", uid, "--regid", uid, "--clear-groups", "--inh-caps=-all"]
        drop += ["--bounding-set=-all"]
    drop += ["--no-new-privs", "--"]
    # NPROC counts per uid (per user namespace): only meaningful with a uid of our own.
    nproc = lease is not None or request.mode == "bwrap"
    limit = [request.tools["prlimit"], *request.limits.prlimit_args(nproc=nproc), "--"]
    return [*drop, *limit, *request.bot_command(address)]


def _bwrap_plan(
    request: _LaunchRequest,
    inner: list[str],
    env_extra: dict[str, str],
    until_spawned: contextlib.ExitStack,
) -> _ExecPlan:
    """bwrap with a bare environment, its arguments in a memfd open until the fork."""
    argv = _bwrap_argv(request, inner, env_extra)
    # Hand bwrap its arguments through a memfd so that host paths do not show up in
    # the sandbox's /proc/1/cmdline.
    split = len(argv) - len(inner) - 1  # bwrap's own "--"; an env value may also be "--"
    args_fd = os.memfd_create("bwrap-args", 0)
    until_spawned.callback(os.close, args_fd)
    os.write(args_fd, b"".join(arg.encode() + b"\0" for arg in argv[1:split]))
    os.lseek(args_fd, 0, os.SEEK_SET)
    return _ExecPlan(
        argv=[argv[0], "--args", str(args_fd), *argv[split:]],
        env={"PATH": _TOOL_PATH, "LANG": "C.UTF-8"},
        cwd="/",
        pass_fds=(args_fd,),
        preexec_fn=die_with(os.getpid()),
    )


def _rlimits_plan(
    request: _LaunchRequest, inner: list[str], env_extra: dict[str, str], private_tmp: Path
) -> _ExecPlan:
    """The command run directly in the bot's directory, with its private temporary dir."""
    env = _bot_env(env_extra, str(private_tmp))
    return _ExecPlan(argv=inner, env=env, cwd=str(request.host_cwd))


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
    return _spawn(
        functools.partial(
            subprocess.Popen,
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
    )
