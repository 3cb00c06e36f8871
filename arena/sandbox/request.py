"""A launch request, checked in full before anything is created on the host."""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from arena.sandbox.limits import DEFAULT_LIMITS, Limits

from .policy import BOT_DIR_INSIDE, DEFAULT_SOCKET_NAME, Mode, SandboxError, SandboxPolicy
from .seccomp import bot_filter

_TOOL_PATH = "/usr/bin:/bin:/usr/sbin:/sbin"


def _tools() -> dict[str, str]:
    """util-linux helpers used to drop privileges, set rlimits and cap /tmp's inodes after
    bwrap's setup, and the shell chaining them."""
    found = {}
    for name in ("prlimit", "setpriv", "mount", "sh"):
        path = shutil.which(name, path=_TOOL_PATH)
        if path is None:
            raise SandboxError(f"`{name}` (util-linux) not found in {_TOOL_PATH}")
        found[name] = path
    return found


@dataclass
class _LaunchRequest:
    """What to start, where and how (see :func:`launch`), normalised and validated on creation
    so that a bad request fails before any uid, file or process exists for it."""

    command: Sequence[str]
    bot_dir: Path
    mode: Mode
    policy: SandboxPolicy
    log_path: Path
    limits: Limits = DEFAULT_LIMITS
    env_extra: Mapping[str, str] = field(default_factory=dict)
    workdir: str = "."
    socket_name: str = DEFAULT_SOCKET_NAME
    address_env: str | None = None
    address_arg: bool = False
    append_log: bool = False
    # A build (arena.builds): the bot's folder bound writable (it is the build's own copy),
    # the host's /usr for the compilers instead of the play view, and the seccomp filter
    # without the channel rules (compilers lock files; no seat plays beside a build's
    # files). /proc stays the allowlisted one.
    build: bool = False
    tools: dict[str, str] = field(init=False)
    as_root: bool = field(init=False)
    seccomp_filter: bytes | None = field(init=False)

    def __post_init__(self) -> None:
        self.command = [str(c) for c in self.command]
        if not self.command:
            raise ValueError("empty command")
        self.bot_dir = Path(self.bot_dir).resolve()
        if "/" in self.socket_name or self.socket_name in ("", ".", ".."):
            raise ValueError(f"bad socket name {self.socket_name!r}")
        rel = PurePosixPath(self.workdir)
        if rel.is_absolute() or ".." in rel.parts:
            raise ValueError(f"workdir must be relative to the bot directory: {self.workdir!r}")
        for path in (self.bot_dir, self.host_cwd):
            if not path.is_dir():
                raise SandboxError(f"{path} is not a directory")
        self.log_path = Path(self.log_path).absolute()
        if Path(self.policy.private_tmp_root).resolve() in self.log_path.resolve().parents:
            # Bots can write there: one could swap the log for a symlink the platform follows.
            raise SandboxError("log_path must not be inside the bots' private tmp dirs")
        self.tools = _tools()
        self.as_root = os.geteuid() == 0
        self.seccomp_filter = bot_filter(channels=self.policy.close_channels and not self.build)

    def bot_command(self, address: str) -> list[str]:
        """The command, with the socket address as its last argument if asked."""
        return [*self.command, address] if self.address_arg else list(self.command)

    def bot_env_extra(self, address: str) -> dict[str, str]:
        """``env_extra``, plus the socket address under ``address_env`` if asked."""
        extra = dict(self.env_extra)
        if self.address_env is not None:
            extra[self.address_env] = address
        return extra

    @property
    def remounts_tmp(self) -> bool:
        """Whether bwrap's /tmp and /dev/shm get their inode cap: only as root. Unprivileged,
        mount would need uid 0 of the sandbox's user namespace, and bwrap's init (pid 1)
        runs with the bot's uid and can be ptraced by it: a bot could make it exec a program
        that gets the capabilities bwrap grants to uid 0 there, without the seccomp filter.
        --disable-userns (a nested user namespace) in turn forbids the remount."""
        return self.mode == "bwrap" and self.as_root

    @property
    def host_cwd(self) -> Path:
        """The working directory on the host (rlimits mode runs there)."""
        return self.bot_dir / PurePosixPath(self.workdir)

    @property
    def inside_cwd(self) -> PurePosixPath:
        """The same directory as bwrap mounts it."""
        return BOT_DIR_INSIDE / PurePosixPath(self.workdir)
