"""The wiring of one machine: settings, bot limits and sandbox policy, and the archive cache,
handed to everything that stores or runs bots."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from arena.config import Settings
from arena.sandbox import SandboxPolicy
from arena.sandbox.limits import DEFAULT_LIMITS, Limits
from arena.store import BlobStore


@dataclass(frozen=True, init=False)
class Runtime:
    """Where bots live on this machine and how they are confined."""

    settings: Settings
    limits: Limits
    policy: SandboxPolicy
    blobs: BlobStore = field(init=False)

    def __init__(
        self,
        settings: Settings,
        limits: Limits = DEFAULT_LIMITS,
        policy: SandboxPolicy | None = None,  # None: as the settings ask
    ) -> None:
        object.__setattr__(self, "settings", settings)
        object.__setattr__(self, "limits", limits)
        if policy is None:
            policy = SandboxPolicy.from_settings(settings)
        object.__setattr__(self, "policy", policy)
        object.__setattr__(self, "blobs", BlobStore.from_settings(settings))

    @property
    def unpack_dir(self) -> Path:
        return self.settings.data_dir / "bots"

    def log_dir(self, *parts: object) -> Path:
        return self.settings.data_dir.joinpath("logs", *map(str, parts))
