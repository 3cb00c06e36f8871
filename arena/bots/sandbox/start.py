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
from .process import SandboxedProcess
from .request import _TOOL_PATH, _LaunchRequest
from .spawner import _spawn, die_with
from .uids import _check_reachable, _UidLease

logger = logging.getLogger(__package__)  # the package's one logger, named as before the split


@dataclass(frozen=True)
class _ExecPlan:
    """How to exec the launcher in one mode: argv, environment, directory, inherited fds."""

    argv: list[str]
    env: dict[str, str]
    cwd: str
    pass_fds: tuple[int, ...] = ()
    preexec_fn: Callable[[], None] | None = None
    private_tmp: Path | None = None


def _start(request: _LaunchRequest) -> SandboxedProcess:
    """Start ``request``; if that fails, undo what was set up (uid lease, private /tmp, fds)."""
    with contextlib.ExitStack() as undo:
        lease = _lease_uid(request, undo)
        inner = _inner_command(request, lease)
        with contextlib.ExitStack() as until_spawned:
            if request.mode == "bwrap":
                plan = _bwrap_plan(request, inner, until_spawned)
            else:
                plan = _rlimits_plan(request, inner, lease, undo)
            log_file, read_fd, write_fd = _log_pipe(request.log_path, undo)
            popen = _popen(plan, write_fd)
        undo.pop_all()
    os.close(write_fd)
    proc = SandboxedProcess(
        popen, request, lease=lease, log_fd=read_fd, log_file=log_file, private_tmp=plan.private_tmp
    )
    logger.debug("sandbox (%s) pid %d started: %s", request.mode, proc.pid, request.command)
    return proc


def _lease_uid(request: _LaunchRequest, undo: contextlib.ExitStack) -> _UidLease | None:
    """As root, a uid of the bot's own (None otherwise), owning the socket directory."""
    if not request.as_root:
        return None
    _check_reachable(request.bot_dir, ancestors=request.mode == "rlimits")
    if request.mode == "rlimits":
        _check_reachable(request.socket_dir.parent, ancestors=True)
    lease = _UidLease.acquire(request.policy)
    undo.callback(lease.release, clean=False)  # make the next holder sweep, to be safe
    os.chown(request.socket_dir, lease.uid, lease.uid)
    os.chmod(request.socket_dir, 0o700)
    return lease


def _inner_command(request: _LaunchRequest, lease: _UidLease | None) -> list[str]:
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
    return [*drop, *limit, *request.command]


def _bwrap_plan(
    request: _LaunchRequest, inner: list[str], until_spawned: contextlib.ExitStack
) -> _ExecPlan:
    """bwrap with a bare environment, its arguments in a memfd open until the fork."""
    argv = _bwrap_argv(request, inner)
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
    request: _LaunchRequest, inner: list[str], lease: _UidLease | None, undo: contextlib.ExitStack
) -> _ExecPlan:
    """The command run directly in the bot's directory, with a private temporary directory."""
    private_tmp = Path(tempfile.mkdtemp(prefix="arena-bot-tmp-"))
    undo.callback(shutil.rmtree, private_tmp, ignore_errors=True)
    if lease is not None:
        os.chown(private_tmp, lease.uid, lease.uid)
    env = _bot_env(request.env_extra, str(private_tmp))
    return _ExecPlan(argv=inner, env=env, cwd=str(request.host_cwd), private_tmp=private_tmp)


def _log_pipe(log_path: Path, undo: contextlib.ExitStack) -> tuple[BinaryIO, int, int]:
    """The log file and a pipe for the bot's output: (log file, read end, write end)."""
    log_file = open(log_path, "ab", buffering=0)  # noqa: SIM115 (closed by the reader)
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
