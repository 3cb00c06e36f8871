"""What the platform asks of the sandbox: the policy, the socket paths and the errors."""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Literal

from arena.config import DEFAULT_UID_BASE, DEFAULT_UID_COUNT, DEFAULT_UID_LOCK_DIR, Settings

Mode = Literal["bwrap", "rlimits"]

BOT_DIR_INSIDE = PurePosixPath("/bot")
TMP_INSIDE = PurePosixPath("/tmp")  # the bot's private tmpfs; its socket lives there
DEFAULT_SOCKET_NAME = "bot.sock"


class SandboxError(RuntimeError):
    """The sandbox could not start or clean up a bot."""


class SandboxUnavailable(SandboxError):
    """No real sandbox (bwrap) is usable and the policy forbids the rlimits-only fallback."""


class UnsafeSocket(SandboxError):
    """What the bot left at its socket path is not a socket it made: never connected to."""


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
    private_tmp_root
        rlimits mode as root: the root-owned folder holding each leased uid's private tmp
        dir (the bot cannot rename its dir away; the sweep removes leftovers).
    close_channels
        Close the channels bots have through the shared kernel (default): the seccomp
        filter's rules for keys, locks, page-cache probes and host-wide counters, a fresh
        session keyring, a private copy of the bot's files, the eviction of the pages it
        cached and the allowlisted /proc (procview.py; see docs/sandbox.md). False gives
        the sandbox as it was before: only to measure what the defences cost, for the
        tests' controls, or to diagnose a runtime they break.
    copy_dir
        bwrap mode: where each launch gets its own copy of the bot's files, bound read-only
        at ``/bot`` (fresh inodes, so no page-cache state of them outlives the game). None:
        /dev/shm, or the temporary directory when /dev/shm is missing or full.
    """

    mode: Literal["auto", "bwrap", "rlimits"] = "auto"
    require_sandbox: bool = False
    bwrap_path: str = "/usr/bin/bwrap"
    uid_base: int = DEFAULT_UID_BASE
    uid_count: int = DEFAULT_UID_COUNT
    uid_lock_dir: Path = DEFAULT_UID_LOCK_DIR
    extra_ro_paths: tuple[str, ...] = ()
    stop_grace_seconds: float = 2.0
    private_tmp_root: Path = Path(tempfile.gettempdir()) / "arena-sandbox-tmp"
    close_channels: bool = True
    copy_dir: Path | None = None
    use_cgroups: bool = True
    cgroup_parent: str = "arena-sandbox"

    def __post_init__(self) -> None:
        if self.mode not in ("auto", "bwrap", "rlimits"):
            raise ValueError(f"SandboxPolicy.mode must be auto, bwrap or rlimits: {self.mode!r}")
        if self.uid_base <= 0 or self.uid_count <= 0:
            raise ValueError("SandboxPolicy.uid_base and uid_count must be positive")
        parent = PurePosixPath(self.cgroup_parent)
        if parent.is_absolute() or ".." in parent.parts or not parent.parts:
            raise ValueError(f"SandboxPolicy.cgroup_parent must be a relative path: {parent}")

    @classmethod
    def from_settings(cls, settings: Settings, **overrides: object) -> SandboxPolicy:
        """The policy ``settings`` ask for (``sandbox_mode``, ``require_sandbox``,
        ``bwrap_path``, the uid range and its lock folder); ``overrides`` win."""
        kwargs: dict[str, object] = {
            "mode": settings.sandbox_mode,
            "require_sandbox": settings.require_sandbox,
            "bwrap_path": settings.bwrap_path,
            "uid_base": settings.uid_base,
            "uid_count": settings.uid_count,
            "uid_lock_dir": Path(settings.uid_lock_dir),
        }
        kwargs.update(overrides)
        return cls(**kwargs)  # type: ignore[arg-type]

    @classmethod
    def from_env(
        cls, environ: Mapping[str, str] | None = None, **overrides: object
    ) -> SandboxPolicy:
        """The policy of ``Settings.from_env`` (``ARENA_SANDBOX_MODE``,
        ``ARENA_REQUIRE_SANDBOX``, ``ARENA_BWRAP``, ``ARENA_SANDBOX_UID_*``)."""
        settings = Settings.from_env(None if environ is None else dict(environ))
        return cls.from_settings(settings, **overrides)
