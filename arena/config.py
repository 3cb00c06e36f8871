"""Settings from ``ARENA_*`` environment variables; the defaults give the embedded mode."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

DEFAULT_BROKER = "redis://127.0.0.1:6379/0"
DEFAULT_MAX_UPLOAD = 64 * 1024 * 1024
DEFAULT_SUBMISSIONS_PER_HOUR = 20
DEFAULT_PENDING_TIMEOUT_S = 600.0  # a validation match takes seconds; ten minutes is lost
DEFAULT_STORAGE_QUOTA = 256 * 1024 * 1024  # four uploads at the cap, hundreds of usual bots


@dataclass(frozen=True)
class Settings:
    """``database_url``: SQLAlchemy URL (default: ``arena.db`` in the working directory);
    ``data_dir``: this machine's cache of bot archives, unpacked bots and bot logs;
    ``broker_url``: Celery broker for the cluster mode;
    ``lease_s``: how long a worker may go silent before its match is handed to another;
    ``max_attempts``: claims of one match before it ends failed;
    ``broker_configured``: ``ARENA_BROKER_URL`` is set, so uploaded bots are validated by
    Celery workers (else in the web process's own background thread);
    ``max_upload``: bytes of one uploaded bot archive (``ARENA_MAX_UPLOAD``);
    ``submissions_per_hour``: uploads per user per hour (``ARENA_SUBMISSIONS_PER_HOUR``);
    ``pending_timeout_s``: seconds after which a version still pending has lost its
    validation and a sweep starts it again (``ARENA_PENDING_TIMEOUT``);
    ``storage_quota``: bytes of archives each user's bots may take in the database
    (``ARENA_STORAGE_QUOTA``; what counts: ``arena.store.storage``)."""

    database_url: str
    data_dir: Path
    broker_url: str = DEFAULT_BROKER
    lease_s: float = 60.0
    max_attempts: int = 3
    broker_configured: bool = False
    max_upload: int = DEFAULT_MAX_UPLOAD
    submissions_per_hour: int = DEFAULT_SUBMISSIONS_PER_HOUR
    pending_timeout_s: float = DEFAULT_PENDING_TIMEOUT_S
    storage_quota: int = DEFAULT_STORAGE_QUOTA

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> Settings:
        env = os.environ if environ is None else environ
        return cls(
            database_url=env.get("ARENA_DATABASE_URL", "sqlite:///arena.db"),
            data_dir=Path(env.get("ARENA_DATA_DIR", "arena-data")),
            broker_url=env.get("ARENA_BROKER_URL", DEFAULT_BROKER),
            lease_s=_number(env, "ARENA_LEASE_SECONDS", float, 60.0, minimum=1),
            max_attempts=_number(env, "ARENA_MAX_ATTEMPTS", int, 3, minimum=1),
            broker_configured=bool(env.get("ARENA_BROKER_URL")),
            max_upload=_number(env, "ARENA_MAX_UPLOAD", int, DEFAULT_MAX_UPLOAD, minimum=1),
            submissions_per_hour=_number(
                env, "ARENA_SUBMISSIONS_PER_HOUR", int, DEFAULT_SUBMISSIONS_PER_HOUR, minimum=1
            ),
            pending_timeout_s=_number(
                env, "ARENA_PENDING_TIMEOUT", float, DEFAULT_PENDING_TIMEOUT_S, minimum=1
            ),
            storage_quota=_number(
                env, "ARENA_STORAGE_QUOTA", int, DEFAULT_STORAGE_QUOTA, minimum=1
            ),
        )


_N = TypeVar("_N", int, float)


def _number(env: Mapping[str, str], name: str, kind: type[_N], default: _N, minimum: _N) -> _N:
    """A numeric setting; a bad value is refused with a one-line reason, never ignored."""
    text = env.get(name)
    if text is None:
        return default
    value: _N | None
    try:
        value = kind(text)
    except ValueError:
        value = None
    if value is None or not value >= minimum:
        raise ValueError(f"{name}={text!r}: expected a {kind.__name__} of at least {minimum}")
    return value
