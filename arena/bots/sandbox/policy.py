"""What the platform asks of the sandbox: the policy, the socket paths and the errors."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Literal

Mode = Literal["bwrap", "rlimits"]

BOT_DIR_INSIDE = PurePosixPath("/bot")
SOCKET_DIR_INSIDE = PurePosixPath("/run/arena")
DEFAULT_SOCKET_NAME = "bot.sock"

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
        """Policy from ``ARENA_REQUIRE_SANDBOX`` (1/true/yes/on), ``ARENA_SANDBOX_MODE`` and
        ``ARENA_BWRAP`` (bubblewrap's path)."""
        env = os.environ if environ is None else environ
        kwargs: dict[str, object] = {}
        if env.get("ARENA_REQUIRE_SANDBOX", "").strip().lower() in _TRUTHY:
            kwargs["require_sandbox"] = True
        if env.get("ARENA_SANDBOX_MODE", "").strip():
            kwargs["mode"] = env["ARENA_SANDBOX_MODE"].strip().lower()
        if env.get("ARENA_BWRAP", "").strip():
            kwargs["bwrap_path"] = env["ARENA_BWRAP"].strip()
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
