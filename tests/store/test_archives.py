"""Bot archives live in the database; each machine caches them, and unpacks them safely
when several processes want the same bot at once."""

from __future__ import annotations

import io
import multiprocessing
import zipfile
from pathlib import Path

import pytest

from arena.bots.package import load_package
from arena.store import (
    BlobStore,
    Database,
    StoreError,
    add_bot_version,
    cached_archive,
    get_archive,
    put_archive,
    sha256_hex,
)
from tests.store.conftest import manifest


def test_an_archive_is_stored_once_and_read_back_verified(db: Database) -> None:
    with db.session() as s:
        digest = put_archive(s, b"zip bytes")
        assert put_archive(s, b"zip bytes") == digest  # a second writer is harmless
    with db.session(read_only=True) as s:
        assert get_archive(s, digest) == b"zip bytes"
        with pytest.raises(StoreError, match="not in the database"):
            get_archive(s, sha256_hex(b"never stored"))


def test_a_worker_cache_fills_from_the_database_and_heals(db: Database, tmp_path: Path) -> None:
    """Two machines: the uploader's cache and another worker's, with no disk in common."""
    with db.session() as s:
        version = add_bot_version(s, BlobStore(tmp_path / "a"), b"bot zip", manifest("b"))
    other = BlobStore(tmp_path / "b")
    assert not other.path(version.sha256).is_file()
    with db.session(read_only=True) as s:
        assert cached_archive(s, other, version.sha256) == b"bot zip"
    assert other.get(version.sha256) == b"bot zip"
    other.path(version.sha256).write_bytes(b"flipped bits")
    with db.session(read_only=True) as s:
        assert cached_archive(s, other, version.sha256) == b"bot zip"
    assert other.get(version.sha256) == b"bot zip"


def _zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.writestr("bot.toml", 'name = "racer"\ncommand = ["python3", "bot.py"]\n')
        for i in range(200):
            zf.writestr(f"data/{i}.txt", "x" * 1000)
    return buffer.getvalue()


def _unpack(archive: str, target: str, out: multiprocessing.Queue) -> None:
    try:
        out.put(str(load_package(Path(archive), Path(target)).root))
    except Exception as exc:  # reported to the test, which fails on it
        out.put(f"error: {exc}")


def test_processes_unpacking_the_same_bot_at_once_all_succeed(tmp_path: Path) -> None:
    archive = tmp_path / "bot.zip"
    archive.write_bytes(_zip())
    context = multiprocessing.get_context("spawn")
    out = context.Queue()
    procs = [
        context.Process(target=_unpack, args=(str(archive), str(tmp_path / "bots"), out))
        for _ in range(4)
    ]
    for p in procs:
        p.start()
    roots = {out.get(timeout=60) for _ in procs}
    for p in procs:
        p.join(timeout=30)
    digest = sha256_hex(archive.read_bytes())
    assert roots == {str(tmp_path / "bots" / digest)}
    assert sorted(p.name for p in (tmp_path / "bots").iterdir()) == [digest]  # no leftovers
    assert len(list((tmp_path / "bots" / digest / "data").iterdir())) == 200
