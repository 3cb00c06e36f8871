"""The key that signs the dashboard's cookies: ``ARENA_SECRET_KEY``, else a random one
created once in the data directory (mode 0600) and shared by every worker on the machine.
Several dashboard machines must share it: set ``ARENA_SECRET_KEY`` there."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

FILE = "secret_key"


def secret_key(data_dir: Path, environ: dict[str, str] | None = None) -> str:
    env = os.environ if environ is None else environ
    if key := env.get("ARENA_SECRET_KEY"):
        if len(key) < 16:
            raise ValueError("ARENA_SECRET_KEY must have at least 16 characters")
        return key
    path = Path(data_dir) / FILE
    if not path.exists():
        _create(path)
    return path.read_text().strip()


def _create(path: Path) -> None:
    """Written aside then linked into place: two workers starting together agree on one key."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{FILE}.{os.getpid()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(secrets.token_urlsafe(48))
    try:
        os.link(tmp, path)
    except FileExistsError:
        pass  # another worker won: use its key
    finally:
        tmp.unlink()
