"""The entry point: start a bot sandboxed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from arena.sandbox.limits import DEFAULT_LIMITS, Limits

from .detect import resolve_mode
from .policy import DEFAULT_SOCKET_NAME, SandboxPolicy
from .process import SandboxedProcess
from .request import _LaunchRequest
from .start import _start


def launch(
    command: Sequence[str],
    bot_dir: Path,
    *,
    log_path: Path,
    limits: Limits = DEFAULT_LIMITS,
    env_extra: Mapping[str, str] | None = None,
    workdir: str = ".",
    policy: SandboxPolicy | None = None,
    socket_name: str = DEFAULT_SOCKET_NAME,
    address_env: str | None = None,
    address_arg: bool = False,
    append_log: bool = False,
    build: bool = False,
) -> SandboxedProcess:
    """Start ``command`` sandboxed and return a handle that must be stopped.

    command
        argv; no shell. Relative paths are relative to the working directory (the bot
        directory, or ``workdir`` inside it); bare names are looked up on the sandbox PATH,
        which starts with the platform's Python ``bin`` directory.
    bot_dir
        The bot's directory: read-only at ``/bot`` (bwrap) and the working directory.
    log_path
        Receives stdout+stderr, capped at ``limits.log_bytes`` per launch; truncated first
        unless ``append_log``. Never a symlink.
    env_extra
        Added to the minimal environment (PATH, HOME, TMPDIR, LANG,
        PYTHONDONTWRITEBYTECODE); nothing else of the platform's environment is passed.
    socket_name, address_env, address_arg
        The bot listens on ``unix:<its private tmp>/<socket_name>`` (``.bot_address``),
        given to it in the environment variable ``address_env`` and/or as the last
        argument. Connect with :meth:`SandboxedProcess.connect_address`, never the path.
    build
        Run a bot's build: ``bot_dir`` (a folder of the build's own) is writable at ``/bot``
        and handed to the bot's uid, and the compilers of the host's /usr are visible.
    """
    policy = SandboxPolicy.from_env() if policy is None else policy
    request = _LaunchRequest(
        command,
        bot_dir,
        mode=resolve_mode(policy),
        policy=policy,
        log_path=log_path,
        limits=limits,
        env_extra=env_extra or {},
        workdir=workdir,
        socket_name=socket_name,
        address_env=address_env,
        address_arg=address_arg,
        append_log=append_log,
        build=build,
    )
    return _start(request)
