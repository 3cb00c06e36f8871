"""This machine's cache of bot archives, named by their sha256, deterministic packing of bot
folders, and a bot's identity from its files (the archives themselves live in the database:
see ``arena.store.archives``).

Blobs are immutable: a write goes to a temp file in the target folder and is renamed into
place, so readers never see half a file and concurrent writers of the same bytes are harmless.
Reads re-hash the bytes, so a corrupted or tampered archive is caught before it is unpacked.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import stat
import tempfile
import zipfile
from pathlib import Path, PurePosixPath

from arena.bots.package import MANIFEST, MAX_FILES, MAX_UNPACKED_BYTES, PackageError
from arena.config import Settings
from arena.store.errors import StoreError

_DIGEST = re.compile(r"^[0-9a-f]{64}$")
_SKIPPED_DIRS = {"__pycache__", ".git", "__MACOSX"}
ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)  # the earliest timestamp a zip can hold


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class BlobStore:
    """Content-addressed files under ``root``: ``root/ab/abcdef...``."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    @classmethod
    def from_settings(cls, settings: Settings | None = None) -> BlobStore:
        return cls((settings or Settings.from_env()).data_dir / "blobs")

    def path(self, digest: str) -> Path:
        if not _DIGEST.match(digest):
            raise StoreError(f"{digest!r} is not a sha256 digest (64 lowercase hex digits)")
        return self.root / digest[:2] / digest

    def put(self, data: bytes) -> str:
        """Store ``data`` (once) and return its sha256."""
        digest = sha256_hex(data)
        target = self.path(digest)
        if target.is_file():
            return digest
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
                out.flush()
                os.fsync(out.fileno())
            os.chmod(temp, 0o644)
            os.replace(temp, target)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise
        return digest

    def get(self, digest: str) -> bytes:
        """The bytes stored under ``digest``, after checking they still hash to it."""
        target = self.path(digest)
        try:
            data = target.read_bytes()
        except FileNotFoundError:
            raise StoreError(f"bot archive {digest} is missing from {self.root}") from None
        if sha256_hex(data) != digest:
            raise StoreError(
                f"bot archive {digest} in {self.root} is corrupt (its sha256 differs); "
                "delete it and upload the bot again"
            )
        return data

    def discard(self, digest: str) -> None:
        """Forget a cached blob (a reader that opened it keeps its bytes)."""
        self.path(digest).unlink(missing_ok=True)


def pack_directory(path: Path, max_bytes: int | None = None) -> bytes:
    """A zip of a bot folder that depends only on names, contents and executable bits.

    Entries are sorted, timestamps fixed and permissions normalised to 644/755, so packing
    the same folder twice gives the same bytes and thus the same sha256 (the same version).
    ``max_bytes``: a built tree's own cap (default: a bot's upload cap).
    """
    root = Path(path)
    if not root.is_dir():
        raise PackageError(f"{root}: not a directory")
    if not (root / MANIFEST).is_file():
        raise PackageError(f"{root}: no {MANIFEST} (it must name the bot and its start command)")
    files = _collect(root, max_bytes or MAX_UNPACKED_BYTES)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        for rel, file in files:
            info = zipfile.ZipInfo(rel, date_time=ZIP_EPOCH)
            info.create_system = 3  # unix, so readers honour the mode bits
            executable = file.stat().st_mode & 0o111
            info.external_attr = (stat.S_IFREG | (0o755 if executable else 0o644)) << 16
            zf.writestr(info, file.read_bytes(), zipfile.ZIP_DEFLATED, compresslevel=9)
    return buffer.getvalue()


def tree_digest(archive: bytes) -> str:
    """A bot's identity: sha256 over the sorted paths and contents of its files, relative to
    the folder holding it (the archive's root, or its single top-level folder). Timestamps,
    entry order, compression and modes do not count, nor do ``__pycache__``, ``.git`` and
    ``__MACOSX``: a folder, a zip of it, a re-zip and a zip of the folder around it agree.
    Bytes that are no zip (a house bot's stand-in) are their own identity."""
    try:
        zf = zipfile.ZipFile(io.BytesIO(archive))
    except zipfile.BadZipFile:
        return sha256_hex(archive)
    with zf:
        files = [
            (PurePosixPath(info.filename).parts, info)
            for info in zf.infolist()
            if not info.is_dir() and not _SKIPPED_DIRS & set(PurePosixPath(info.filename).parts)
        ]
        tops = {parts[0] for parts, _ in files}
        strip = int(len(tops) == 1 and all(len(parts) > 1 for parts, _ in files))
        entries, total = [], 0
        for parts, info in files:
            content = hashlib.sha256()
            with zf.open(info) as src:
                while chunk := src.read(1 << 16):
                    total += len(chunk)
                    if total > MAX_UNPACKED_BYTES:
                        raise PackageError(
                            f"the bot unpacks to more than {MAX_UNPACKED_BYTES} bytes"
                        )
                    content.update(chunk)
            entries.append(("/".join(parts[strip:]), content.hexdigest()))
    tree = hashlib.sha256()
    for name, content_digest in sorted(entries):
        tree.update(f"{name}\0{content_digest}\n".encode())
    return tree.hexdigest()


def _collect(root: Path, max_bytes: int) -> list[tuple[str, Path]]:
    """Regular files under ``root`` as (posix relative name, path), sorted by name."""
    found: list[tuple[str, Path]] = []
    total = 0
    for current, dirs, names in os.walk(root):
        here = Path(current)
        dirs[:] = sorted(d for d in dirs if d not in _SKIPPED_DIRS)
        for name in dirs:
            _check_entry(here / name, root, is_dir=True)
        for name in names:
            entry = here / name
            _check_entry(entry, root, is_dir=False)
            total += entry.stat().st_size
            found.append((entry.relative_to(root).as_posix(), entry))
        if total > max_bytes or len(found) > MAX_FILES:
            raise PackageError(
                f"{root}: more than {max_bytes} bytes or {MAX_FILES} files; "
                "leave build outputs and data out of the bot folder"
            )
    return sorted(found)


def _check_entry(entry: Path, root: Path, is_dir: bool) -> None:
    """A link to a file inside the bot is packed as that file (npm's ``node_modules/.bin``
    holds such links); links to folders or to anything outside the bot are refused."""
    rel = entry.relative_to(root).as_posix()
    if entry.is_symlink():
        target = entry.resolve()
        if is_dir or not target.is_file() or not target.is_relative_to(root.resolve()):
            raise PackageError(
                f"{rel}: a symbolic link to a folder or to outside the bot is not allowed; "
                "copy what it points to instead"
            )
    if not is_dir and not entry.is_file():
        raise PackageError(f"{rel}: not a regular file (a bot package holds files and folders)")
