"""The entry points: start a bot sandboxed, and tell it where its socket will be."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from arena.bots.limits import DEFAULT_LIMITS, Limits

from .detect import resolve_mode
from .policy import DEFAULT_SOCKET_NAME, SandboxPolicy, SocketEndpoint, endpoint_for
from .process import SandboxedProcess
from .request import _LaunchRequest
from .start import _start


def socket_endpoint(
    socket_dir: Path,
    *,
    policy: SandboxPolicy | None = None,
    socket_name: str = DEFAULT_SOCKET_NAME,
) -> SocketEndpoint:
    """Socket paths for a bot that :func:`launch` will start with the same ``policy``."""
    return endpoint_for(socket_dir, resolve_mode(policy), socket_name)


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
    request = _LaunchRequest(
        command,
        bot_dir,
        mode=resolve_mode(policy),
        policy=policy,
        socket_dir=socket_dir,
        log_path=log_path,
        limits=limits,
        env_extra=env_extra or {},
        workdir=workdir,
        socket_name=socket_name,
    )
    return _start(request)
