"""Settings from ``ARENA_*`` environment variables; the defaults give the embedded mode."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Settings:
    """``database_url``: SQLAlchemy URL (default: ``arena.db`` in the working directory);
    ``data_dir``: bot archives (content-addressed), unpacked bots and bot logs;
    ``broker_url``: Celery broker for the cluster mode (empty: embedded executor)."""

    database_url: str
    data_dir: Path
    broker_url: str

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> Settings:
        env = os.environ if environ is None else environ
        return cls(
            database_url=env.get("ARENA_DATABASE_URL", "sqlite:///arena.db"),
            data_dir=Path(env.get("ARENA_DATA_DIR", "arena-data")),
            broker_url=env.get("ARENA_BROKER_URL", ""),
        )
