"""Bot packages: a directory or zip holding ``bot.toml`` and the code.

Archives are unpacked defensively into a folder named by the archive's sha256: only plain
files and folders (no links, devices or fifos), no absolute or escaping paths, no duplicate or
control-character names, no encryption, only stored or deflated entries, at most
``MAX_FILES`` entries (read from the archive's end record before the central directory is
parsed) and a size cap counted on the bytes actually written, whatever the headers claim.
Error messages name the archive as ``shown`` (the user's own file name), never the platform's
own folders.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import stat
import struct
import sys
import tempfile
import tomllib
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from arena.bots.house import HOUSE_BOTS
from arena.text import reads_as_house

MANIFEST = "bot.toml"
MAX_UNPACKED_BYTES = 64 * 1024 * 1024
MAX_FILES = 5000
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
_VERSION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$")  # shown everywhere: no markup
_KEYS = {"name", "version", "command", "language", "runtime", "description", "protocol"}
# How the platform talks to the bot: callbreak.v1 over gRPC, or the Bhoos "Smart Bots"
# HTTP/JSON protocol (docs/bhoos.md).
PROTOCOLS = ("grpc", "bhoos-http")
_METHODS = {zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED}  # what every zip tool writes
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_END_RECORD = b"PK\x05\x06"
_END_MAX = 22 + 0xFFFF  # end-of-central-directory record plus the longest comment
_MAX_DIRECTORY = MAX_FILES * 1024  # central directory bytes: a name up to ~1000 bytes each
# What a corrupt archive raises besides BadZipFile: a broken compressed stream (zlib.error,
# EOFError), a name flagged UTF-8 that is not (UnicodeDecodeError), a "version needed to
# extract" or feature zipfile lacks (NotImplementedError).
_UNPACK_ERRORS = (
    zipfile.BadZipFile,
    OSError,
    zlib.error,
    EOFError,
    UnicodeDecodeError,
    NotImplementedError,
)


class PackageError(ValueError):
    """A bot package the platform refuses, with a one-line reason."""


@dataclass(frozen=True)
class BotPackage:
    name: str
    version: str
    command: tuple[str, ...]
    root: Path
    sha256: str
    language: str = ""
    runtime: str = ""
    protocol: str = "grpc"

    def launch_command(self) -> list[str]:
        """The command to run; ``python``/``python3`` mean the platform's own interpreter,
        so the ``arena.sdk`` it ships is importable."""
        first, *rest = self.command
        return [sys.executable, *rest] if first in ("python", "python3") else [first, *rest]


def parse_manifest(text: str, where: str = MANIFEST) -> dict:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PackageError(f"{where}: not valid TOML ({exc})") from None
    unknown = set(data) - _KEYS
    if unknown:
        allowed = ", ".join(sorted(_KEYS))
        raise PackageError(
            f"{where}: unknown keys {', '.join(sorted(unknown))} (allowed: {allowed})"
        )
    name, version, command = data.get("name"), data.get("version", "0"), data.get("command")
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise PackageError(f"{where}: name must be 1-64 letters, digits, '.', '_' or '-'")
    if reads_as_house(name, HOUSE_BOTS):
        raise PackageError(
            f"{where}: names that read as 'house' or a house bot's belong to the house bots"
        )
    if not isinstance(version, str) or not _VERSION.fullmatch(version):
        raise PackageError(
            f"{where}: version must be 1-64 letters, digits, '.', '_', '+' or '-' (e.g. 1.0.2)"
        )
    if not (
        isinstance(command, list) and command and all(isinstance(c, str) and c for c in command)
    ):
        raise PackageError(
            f'{where}: command must be a list of strings, e.g. ["python3", "bot.py"]'
        )
    protocol = data.get("protocol", "grpc")
    if protocol not in PROTOCOLS:
        raise PackageError(
            f"{where}: unknown protocol {protocol!r} (choose one of: {', '.join(PROTOCOLS)})"
        )
    return data


def load_package(
    path: Path,
    unpack_dir: Path | None = None,
    max_bytes: int = MAX_UNPACKED_BYTES,
    shown: str | None = None,
) -> BotPackage:
    """Read a bot directory, or unpack a zip into ``unpack_dir`` first; messages call it
    ``shown`` (what the user gave; default: its path), never the cache's folders."""
    path = Path(path)
    shown = shown or str(path)
    if path.is_dir():
        return _from_dir(path.resolve(), _dir_digest(path), shown, str(Path(shown) / MANIFEST))
    if not path.is_file():
        raise PackageError(f"{shown}: no such bot directory or archive")
    if not zipfile.is_zipfile(path):
        raise PackageError(f"{shown}: not a directory or a zip archive")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    target = Path(unpack_dir or path.parent / ".bots") / digest
    if not (target / ".complete").exists():
        _unpack(path, target, max_bytes, shown)
    root = _bot_root(target)
    top = "" if root.name == digest else f"{root.name}/"  # its single top folder
    return _from_dir(root, digest, shown, f"{shown}: {top}{MANIFEST}")


def _from_dir(root: Path, digest: str, shown: str, manifest_shown: str) -> BotPackage:
    """Errors name ``shown`` (the user's folder or zip) and ``manifest_shown`` (its
    manifest: ``mybot/bot.toml`` or ``mybot.zip: bot.toml``), not the cache's paths."""
    manifest = root / MANIFEST
    if manifest.is_symlink() or not manifest.is_file():
        raise PackageError(f"{shown}: no {MANIFEST} (it must name the bot and its start command)")
    data = parse_manifest(manifest.read_text(errors="replace"), manifest_shown)
    return BotPackage(
        name=data["name"],
        version=data.get("version", "0"),
        command=tuple(data["command"]),
        root=root,
        sha256=digest,
        language=str(data.get("language", "")),
        runtime=str(data.get("runtime", "")),
        protocol=data.get("protocol", "grpc"),
    )


def _unpack(archive: Path, target: Path, max_bytes: int, shown: str) -> None:
    """Unpack into a folder of this process's own, then rename it into place: two processes
    unpacking the same bot at once both succeed, and a folder in use is never touched."""
    _check_entry_count(archive, shown)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        with zipfile.ZipFile(archive) as zf:
            members = zf.infolist()
            if len(members) > MAX_FILES:
                raise PackageError(f"{shown}: more than {MAX_FILES} files")
            _check_names(members, shown)
            written = 0
            for info in members:
                written += _extract(zf, info, partial, written, max_bytes, shown)
        (partial / ".complete").touch()
        partial.chmod(0o755)
        partial.rename(target)
    except _UNPACK_ERRORS as exc:
        shutil.rmtree(partial, ignore_errors=True)
        if (target / ".complete").exists():
            return  # another process unpacked the same bot first
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise PackageError(f"{shown}: cannot unpack ({reason})") from None
    except PackageError:
        shutil.rmtree(partial, ignore_errors=True)
        raise


def _check_entry_count(archive: Path, shown: str) -> None:
    """Refuse an archive with too many entries from its end record, before ``ZipFile``
    parses the whole central directory into memory (a million tiny entries fit in 64 MiB)."""
    with open(archive, "rb") as f:
        size = f.seek(0, 2)
        f.seek(max(0, size - _END_MAX))
        tail = f.read()
    at = tail.rfind(_END_RECORD)
    if at < 0 or len(tail) - at < 22:
        return  # not a plain zip end: ZipFile reports what is wrong
    entries, directory_size = struct.unpack("<6xHI", tail[at + 4 : at + 16])
    if (entries > MAX_FILES and entries != 0xFFFF) or directory_size > _MAX_DIRECTORY:
        raise PackageError(f"{shown}: more than {MAX_FILES} files")


def _check_names(members: list[zipfile.ZipInfo], shown: str) -> None:
    """Each entry names a distinct place inside the bot's folder."""
    seen: set[tuple[str, ...]] = set()
    for info in members:
        raw = info.filename
        name = PurePosixPath(raw)
        if name.is_absolute() or ".." in name.parts or not name.parts:
            raise PackageError(f"{shown}: entry {raw!r} escapes the bot's folder")
        if "\\" in raw:
            raise PackageError(f"{shown}: entry {raw!r} uses '\\' (zip names use '/')")
        if _CONTROL.search(raw):
            raise PackageError(f"{shown}: entry {raw!r} has control characters in its name")
        if name.parts in seen and not info.is_dir():
            raise PackageError(f"{shown}: entry {raw!r} appears twice")
        seen.add(name.parts)


def _extract(
    zf: zipfile.ZipFile, info: zipfile.ZipInfo, dest: Path, done: int, limit: int, shown: str
) -> int:
    raw = info.filename
    kind = stat.S_IFMT(info.external_attr >> 16)
    if kind == stat.S_IFLNK:
        raise PackageError(f"{shown}: entry {raw!r} is a symbolic link (not allowed)")
    if kind not in (0, stat.S_IFREG, stat.S_IFDIR):
        raise PackageError(f"{shown}: entry {raw!r} is not a plain file or folder")
    if info.flag_bits & 0x1:
        raise PackageError(f"{shown}: entry {raw!r} is encrypted (upload a plain zip)")
    if info.compress_type not in _METHODS:
        raise PackageError(
            f"{shown}: entry {raw!r} uses an unsupported compression (use stored or deflate)"
        )
    out = dest.joinpath(*PurePosixPath(raw).parts)
    if info.is_dir() or kind == stat.S_IFDIR:
        out.mkdir(parents=True, exist_ok=True)
        return 0
    out.parent.mkdir(parents=True, exist_ok=True)
    written = 0
    with zf.open(info) as src, open(out, "xb") as dst:
        while chunk := src.read(1 << 16):
            written += len(chunk)
            if done + written > limit:
                raise PackageError(f"{shown}: unpacks to more than the size limit ({limit} bytes)")
            dst.write(chunk)
    if info.external_attr >> 16 & 0o111:
        out.chmod(0o755)
    return written


def _bot_root(target: Path) -> Path:
    """The folder holding bot.toml: the archive root or its single top-level folder."""
    if (target / MANIFEST).is_file():
        return target
    entries = [p for p in target.iterdir() if p.name not in (".complete", "__MACOSX")]
    if len(entries) == 1 and entries[0].is_dir():
        return entries[0]
    return target


def _dir_digest(root: Path) -> str:
    """A digest of a bot folder's files (names and contents), for identifying versions."""
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file() and "node_modules" not in p.parts):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()
