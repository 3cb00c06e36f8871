"""The key that signs the dashboard's cookies: ``ARENA_SECRET_KEY``, else a random one
created once in the data directory (mode 0600) and shared by every worker on the machine.
Several dashboard machines must share it: set ``ARENA_SECRET_KEY`` there."""

from __future__ import annotations

import os
import secrets
import tempfile
from pathlib import Path

FILE = "secret_key"


def secret_key(data_dir: Path, configured: str | None = None) -> str:
    """``configured`` (``Settings.secret_key``, checked there) or the machine's own."""
    if configured:
        return configured
    path = Path(data_dir) / FILE
    if not path.exists():
        _create(path)
    return path.read_text().strip()


def _create(path: Path) -> None:
    """Written aside then linked into place: two workers (or threads) starting together agree
    on one key, and nobody reads a half-written one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{FILE}.", dir=path.parent)  # 0600, unique per call
    tmp = Path(name)
    with os.fdopen(fd, "w") as f:
        f.write(secrets.token_urlsafe(48))
    try:
        os.link(tmp, path)
    except FileExistsError:
        pass  # another worker won: use its key
    finally:
        tmp.unlink()
