"""Fixtures for the platform services: registry, tournament creation and the executor.

Everything is real: a migrated database (SQLite; both backends for the tests marked
``both_databases``), a data dir in the test's tmp_path, and process bots in a bwrap sandbox
(skipped locally without bwrap, failed under ``CI=true``): the fixtures ``db``,
``store_runtime`` and ``runtime`` of ``tests/conftest.py``. Below: helpers of the tests.
"""

from __future__ import annotations

import os
import shutil
import stat
import zipfile
from collections.abc import Iterable
from pathlib import Path

from sqlalchemy import func, select

from arena.bots.package import MAX_UNPACKED_BYTES
from arena.registry import register_bot
from arena.runtime import Runtime
from arena.store import BotVersion, Database, add_bot_version
from tests.support import SAMPLE_BOTS

BAD_BOTS = Path(__file__).resolve().parent / "bots"
MANIFEST = 'name = "{name}"\nversion = "{version}"\ncommand = ["python3", "bot.py"]\n'


# --------------------------------------------------------------------------- bots


def sample_copy(
    target: Path, name: str, source: str | Path = "random", version: str = "1.0"
) -> Path:
    """A copy of a bot (a sample bot's name, or a folder) under another name, so that a
    tournament can hold several."""
    source = SAMPLE_BOTS / source if isinstance(source, str) else source
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
    (target / "bot.toml").write_text(MANIFEST.format(name=name, version=version))
    return target


def valid_bot(db: Database, runtime: Runtime, path: Path) -> BotVersion:
    """Register a trusted bot (no validation match), for tests about what comes after."""
    version = register_bot(db, runtime, path, validate=False)
    assert version.status == "valid", version
    return version


def house_entrant(db: Database, runtime: Runtime, name: str, kind: str = "random") -> BotVersion:
    """One more house bot as a stored version, beyond the three the scheduler fills with."""
    manifest = {"name": name, "version": "builtin", "house": kind}
    with db.session() as s:
        return add_bot_version(s, runtime.blobs, f"test house {name}".encode(), manifest, "valid")


def fake_bot(db: Database, runtime: Runtime, name: str, version: str = "1.0", status="valid"):
    """A stored version whose archive is never run (for tests that only create tournaments)."""
    manifest = {"name": name, "version": version, "command": ["python3", "bot.py"]}
    with db.session() as s:
        return add_bot_version(s, runtime.blobs, f"{name}@{version}".encode(), manifest, status)


def make_zip(path: Path, entries: dict[str, bytes], links: dict[str, str] | None = None) -> Path:
    """A zip with these files and, in ``links``, symbolic-link entries (name -> target)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
        for name, target in (links or {}).items():
            info = zipfile.ZipInfo(name)
            info.create_system = 3
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            zf.writestr(info, target)
    return path


def good_entries(name: str = "zipped") -> dict[str, bytes]:
    return {
        "bot.toml": MANIFEST.format(name=name, version="1.0").encode(),
        "bot.py": (SAMPLE_BOTS / "random" / "bot.py").read_bytes(),
    }


def write_zip_bomb(path: Path) -> Path:
    """A small zip (a manifest and zeros) that unpacks to one byte over the platform's cap."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("bot.toml", MANIFEST.format(name="bomb", version="1.0"))
        with zf.open("weights.bin", "w") as out:
            chunk = bytes(1 << 20)
            for _ in range(MAX_UNPACKED_BYTES // len(chunk)):
                out.write(chunk)
            out.write(b"\0")
    return path


# --------------------------------------------------------------------------- database


def count(db: Database, model) -> int:
    with db.session(read_only=True) as s:
        return s.scalar(select(func.count()).select_from(model))


def counts(db: Database, models: Iterable) -> dict[str, int]:
    return {m.__tablename__: count(db, m) for m in models}


# --------------------------------------------------------------------------- processes


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return b""


def processes_of(marker: Path) -> list[str]:
    """Live processes (not zombies, not this one) of the platform run that uses the folder
    ``marker``: its path is on their command line or in their environment (the CLI and its
    workers) or among their mounts (bwrap and the bot, whose environment is cleared and whose
    command line names only paths inside the sandbox).

    Going by the marker, not by the sandbox uid range alone, keeps the check exact while
    other test runs on this host use sandbox uids at the same time."""
    needle = str(marker).encode()
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        if int(pid) == os.getpid():
            continue
        status = _read(f"/proc/{pid}/status")
        fields = dict(line.split(b":", 1) for line in status.splitlines() if b":" in line)
        state, uid_field = fields.get(b"State", b"").split(), fields.get(b"Uid", b"").split()
        if not state or state[0] in (b"Z", b"X") or not uid_field:
            continue
        uid = int(uid_field[0])
        cmdline = _read(f"/proc/{pid}/cmdline")
        if any(
            needle in text
            for text in (cmdline, _read(f"/proc/{pid}/environ"), _read(f"/proc/{pid}/mountinfo"))
        ):
            shown = cmdline.replace(b"\0", b" ").decode(errors="replace")[:160]
            found.append(f"pid {pid} uid {uid}: {shown}")
    return found
