"""Bot packages: a directory or zip holding ``bot.toml`` and the code.

Archives are unpacked defensively (no absolute or escaping paths, no links, a size cap
counted on the bytes actually written) into a folder named by the archive's sha256.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import stat
import sys
import tempfile
import tomllib
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

MANIFEST = "bot.toml"
MAX_UNPACKED_BYTES = 64 * 1024 * 1024
MAX_FILES = 5000
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
_VERSION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$")  # shown everywhere: no markup
_KEYS = {"name", "version", "command", "language", "runtime", "description", "protocol"}
# How the platform talks to the bot: callbreak.v1 over gRPC, or the Bhoos "Smart Bots"
# HTTP/JSON protocol (docs/bhoos.md).
PROTOCOLS = ("grpc", "bhoos-http")


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
    if name.lower().startswith("house-"):
        raise PackageError(f"{where}: names starting with 'house-' belong to the house bots")
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
    label: str | None = None,
) -> BotPackage:
    """Read a bot directory, or unpack a zip into ``unpack_dir`` first. Errors name
    ``label`` (what the user gave) instead of ``path`` when it is set."""
    path = Path(path)
    shown = label or str(path)
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
    return _from_dir(_bot_root(target), digest, shown, f"{shown}: {MANIFEST}")


def _from_dir(root: Path, digest: str, shown: str, manifest_shown: str) -> BotPackage:
    """Errors name ``shown`` (the user's folder or zip) and ``manifest_shown`` (its
    manifest: ``mybot/bot.toml`` or ``mybot.zip: bot.toml``), not the cache's paths."""
    manifest = root / MANIFEST
    if not manifest.is_file():
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
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        with zipfile.ZipFile(archive) as zf:
            members = zf.infolist()
            if len(members) > MAX_FILES:
                raise PackageError(f"more than {MAX_FILES} files")
            written = 0
            for info in members:
                written += _extract(zf, info, partial, written, max_bytes)
        (partial / ".complete").touch()
        partial.chmod(0o755)
        partial.rename(target)
    except (zipfile.BadZipFile, OSError) as exc:
        shutil.rmtree(partial, ignore_errors=True)
        if (target / ".complete").exists():
            return  # another process unpacked the same bot first
        raise PackageError(f"{shown}: cannot unpack ({exc})") from None
    except PackageError as exc:
        shutil.rmtree(partial, ignore_errors=True)
        raise PackageError(f"{shown}: {exc}") from None


def _extract(zf: zipfile.ZipFile, info: zipfile.ZipInfo, dest: Path, done: int, limit: int) -> int:
    name = PurePosixPath(info.filename)
    if name.is_absolute() or ".." in name.parts or "\\" in info.filename:
        raise PackageError(f"archive entry {info.filename!r} escapes the bot's folder")
    if stat.S_ISLNK(info.external_attr >> 16):
        raise PackageError(f"archive entry {info.filename!r} is a symbolic link (not allowed)")
    out = dest.joinpath(*name.parts)
    if info.is_dir():
        out.mkdir(parents=True, exist_ok=True)
        return 0
    out.parent.mkdir(parents=True, exist_ok=True)
    written = 0
    with zf.open(info) as src, open(out, "wb") as dst:
        while chunk := src.read(1 << 16):
            written += len(chunk)
            if done + written > limit:
                raise PackageError(f"archive unpacks to more than the size limit ({limit} bytes)")
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
