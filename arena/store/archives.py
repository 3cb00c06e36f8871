"""Bot archives in the database, and each machine's local cache of them.

The database is the one place an archive lives, so a worker on any machine can run any
bot. A worker copies an archive into its own ``BlobStore`` (files named by sha256) on first
use; a cached file that no longer hashes to its name is fetched again, never trusted.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from arena.store.blobs import BlobStore, sha256_hex
from arena.store.errors import StoreError
from arena.store.models import BotArchive


def put_archive(s: Session, data: bytes) -> str:
    """Store ``data`` once (a concurrent writer of the same bytes is harmless); its sha256."""
    digest = sha256_hex(data)
    insert = pg_insert if s.get_bind().dialect.name == "postgresql" else sqlite_insert
    row = {"sha256": digest, "size": len(data), "data": data}
    s.execute(insert(BotArchive).values(row).on_conflict_do_nothing())
    return digest


def get_archive(s: Session, digest: str) -> bytes:
    """The archive's bytes, after checking they still hash to ``digest``."""
    data = s.scalar(select(BotArchive.data).where(BotArchive.sha256 == digest))
    if data is None:
        raise StoreError(f"bot archive {digest} is not in the database; upload the bot again")
    if sha256_hex(data) != digest:
        raise StoreError(
            f"bot archive {digest} in the database is corrupt (its sha256 differs); "
            "upload the bot again"
        )
    return data


def cached_archive(s: Session, cache: BlobStore, digest: str) -> bytes:
    """The archive from this machine's cache, filled from the database on first use."""
    try:
        return cache.get(digest)
    except StoreError:  # missing, or corrupt on this disk: the database has the truth
        cache.discard(digest)
    data = get_archive(s, digest)
    cache.put(data)
    return data
