"""Bot packages: a directory or zip holding ``bot.toml`` and the code.

Archives are unpacked defensively into a folder named by the archive's sha256: only plain
files and folders (no links, devices or fifos), no absolute or escaping paths, no duplicate or
control-character names, no encryption, only stored or deflated entries, at most
``MAX_FILES`` entries (both end records, plain and zip64, must agree, and the central
directory is walked, and refused at the first entry over the cap, before ``zipfile`` parses
it) and a size cap counted on the bytes actually written, whatever the headers claim.
``bot.toml`` is at most ``MAX_MANIFEST_BYTES`` of UTF-8 TOML; it is parsed once, when a bot
is registered, and the stored manifest is what starts it in every match.
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
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from arena.bots.protocols import DEFAULT_PROTOCOL, BotProtocol, protocol_named
from arena.house import HOUSE_BOTS
from arena.text import reads_as_house

MANIFEST = "bot.toml"
MAX_UNPACKED_BYTES = 64 * 1024 * 1024
MAX_FILES = 5000
MAX_MANIFEST_BYTES = 64 * 1024  # a name, a version, a command and a description fit easily
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
_VERSION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$")  # shown everywhere: no markup
_KEYS = {"name", "version", "command", "build", "language", "runtime", "description", "protocol"}
_TEXT_KEYS = ("language", "runtime", "description")
_METHODS = {zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED}  # what every zip tool writes
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_END_RECORD_64 = b"PK\x06\x06"
_END_64_BYTES = 56 + 20  # the zip64 end record and its locator, before the plain end record
_DIRECTORY_ENTRY = b"PK\x01\x02"
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
    protocol: str = DEFAULT_PROTOCOL  # how the platform talks to it (arena.bots.protocols)
    build: tuple[str, ...] = ()  # run once at registration (arena.builds); () builds nothing
    manifest: dict = field(default_factory=dict, compare=False, hash=False, repr=False)

    @classmethod
    def from_manifest(cls, manifest: dict, root: Path, sha256: str) -> BotPackage:
        """The package a parsed manifest (``parse_manifest``'s result) describes."""
        return cls(
            name=manifest["name"],
            version=manifest.get("version", "0"),
            command=tuple(manifest["command"]),
            root=root,
            sha256=sha256,
            language=str(manifest.get("language", "")),
            runtime=str(manifest.get("runtime", "")),
            protocol=manifest.get("protocol", DEFAULT_PROTOCOL),
            build=tuple(manifest.get("build", ())),
            manifest=manifest,
        )

    @property
    def speaks(self) -> BotProtocol:
        """The entry of the protocol its manifest names."""
        return protocol_named(self.protocol)

    def launch_command(self) -> list[str]:
        """The command to run; ``python``/``python3`` mean the platform's own interpreter,
        so the ``arena.sdk`` it ships is importable."""
        first, *rest = self.command
        return [sys.executable, *rest] if first in ("python", "python3") else [first, *rest]


def read_manifest(path: Path, where: str = MANIFEST) -> dict:
    """Parse the manifest file ``path`` (messages call it ``where``): its size is checked
    before a byte is read, and it must be UTF-8."""
    if path.stat().st_size > MAX_MANIFEST_BYTES:
        raise _too_long(where)
    try:
        text = path.read_bytes().decode()
    except UnicodeDecodeError as exc:
        raise PackageError(f"{where}: not UTF-8 text (byte {exc.start})") from None
    return parse_manifest(text, where)


def parse_manifest(text: str, where: str = MANIFEST) -> dict:
    """The manifest's keys, checked; anything wrong (too long, not TOML, nested too deep for
    the parser, an unknown key, a wrong type) is one ``PackageError`` naming ``where``."""
    if len(text.encode(errors="replace")) > MAX_MANIFEST_BYTES:
        raise _too_long(where)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PackageError(f"{where}: not valid TOML ({exc})") from None
    except RecursionError:  # tomllib recurses once per nested array or table
        raise PackageError(f"{where}: not valid TOML (nested too deeply)") from None
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
    if not _argv(command):
        raise PackageError(
            f'{where}: command must be a list of strings, e.g. ["python3", "bot.py"]'
        )
    if "build" in data and not _argv(data["build"]):
        raise PackageError(f'{where}: build must be a list of strings, e.g. ["make"]')
    try:
        protocol_named(data.get("protocol", DEFAULT_PROTOCOL))
    except ValueError as exc:
        raise PackageError(f"{where}: {exc}") from None
    if wrong := [key for key in _TEXT_KEYS if not isinstance(data.get(key, ""), str)]:
        raise PackageError(f"{where}: {', '.join(wrong)} must be a string")
    return data


def _argv(value: object) -> bool:
    """A command as the manifest writes it: a non-empty list of non-empty strings."""
    return isinstance(value, list) and bool(value) and all(isinstance(c, str) and c for c in value)


def _too_long(where: str) -> PackageError:
    return PackageError(
        f"{where}: longer than {MAX_MANIFEST_BYTES} bytes; keep it to the bot's name, version, "
        "command and a short description"
    )


def load_package(
    path: Path,
    unpack_dir: Path | None = None,
    max_bytes: int = MAX_UNPACKED_BYTES,
    shown: str | None = None,
    manifest: dict | None = None,
) -> BotPackage:
    """Read a bot directory, or unpack a zip into ``unpack_dir`` first; messages call it
    ``shown`` (what the user gave; default: its path), never the cache's folders.
    ``manifest``: the one parsed when the bot was registered (``bot.toml`` is not read
    again)."""
    path = Path(path)
    shown = shown or str(path)
    if path.is_dir():
        root, digest, where = path.resolve(), _dir_digest(path), str(Path(shown) / MANIFEST)
    elif not path.is_file():
        raise PackageError(f"{shown}: no such bot directory or archive")
    elif not zipfile.is_zipfile(path):
        raise PackageError(f"{shown}: not a directory or a zip archive")
    else:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        target = Path(unpack_dir or path.parent / ".bots") / digest
        if not (target / ".complete").exists():
            _unpack(path, target, max_bytes, shown)
        root = _bot_root(target)
        top = "" if root.name == digest else f"{root.name}/"  # its single top folder
        where = f"{shown}: {top}{MANIFEST}"
    if manifest is None:
        manifest = _manifest_in(root, shown, where)
    return BotPackage.from_manifest(manifest, root, digest)


def _manifest_in(root: Path, shown: str, where: str) -> dict:
    """Errors name ``shown`` (the user's folder or zip) and ``where`` (its manifest:
    ``mybot/bot.toml`` or ``mybot.zip: bot.toml``), not the cache's paths."""
    manifest = root / MANIFEST
    if manifest.is_symlink() or not manifest.is_file():
        raise PackageError(f"{shown}: no {MANIFEST} (it must name the bot and its start command)")
    return read_manifest(manifest, where)


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
    """Refuse an archive with too many entries before ``ZipFile`` parses its whole central
    directory into memory (a million tiny entries fit in 64 MiB). Neither end record is
    trusted: the plain one and the zip64 one must agree, and the directory ``ZipFile`` will
    read is walked here, stopping at the first entry over the cap."""
    with open(archive, "rb") as f:
        try:
            # the very function ZipFile calls: the records checked are the ones it will use
            # (private, so typeshed does not declare it)
            end = zipfile._EndRecData(f)  # type: ignore[attr-defined]
        except (OSError, zipfile.BadZipFile):
            return  # ZipFile reports what is wrong
        if end is None:
            return
        entries, size, at = end[4], end[5], end[9]
        f.seek(at)
        plain = f.read(22)
        if end[0] == _END_RECORD_64:  # the zip64 record is what ZipFile uses
            _check_agreement(plain, entries, size, shown)
            at -= _END_64_BYTES
        if entries > MAX_FILES or size > _MAX_DIRECTORY:
            raise PackageError(f"{shown}: more than {MAX_FILES} files")
        if at < size:
            return  # ZipFile refuses the offset
        f.seek(at - size)  # where ZipFile reads it: just before the end records
        _walk_directory(f.read(size), shown)


def _check_agreement(plain: bytes, entries: int, size: int, shown: str) -> None:
    """The plain end record's counts, where it does not defer to zip64 (all ones), must be
    the zip64 record's: a small count in front of a huge directory is a trick."""
    claimed, claimed_size = struct.unpack("<10xHI", plain[:16])
    if claimed not in (entries, 0xFFFF) or claimed_size not in (size, 0xFFFFFFFF):
        raise PackageError(
            f"{shown}: its end records disagree ({claimed} and {entries} entries); "
            "zip it again with an ordinary zip tool"
        )


def _walk_directory(directory: bytes, shown: str) -> None:
    """Count the central directory's entries the way ``ZipFile`` reads them, refusing at the
    first one over the cap (so the work is bounded by the cap, not by the archive)."""
    total = count = 0
    while total < len(directory):
        header = directory[total : total + 46]
        if len(header) < 46 or header[:4] != _DIRECTORY_ENTRY:
            return  # ZipFile reports the broken directory
        count += 1
        if count > MAX_FILES:
            raise PackageError(f"{shown}: more than {MAX_FILES} files")
        name, extra, comment = struct.unpack_from("<HHH", header, 28)
        total += 46 + name + extra + comment


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
