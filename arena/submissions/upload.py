"""From what a contestant sent to a checked archive: size cap while reading, a single source
file packed with a generated manifest, and the archive unpacked once in a throw-away folder
to read its manifest (so a refused archive leaves nothing behind)."""

from __future__ import annotations

import json
import re
import shlex
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from arena.bots.package import MANIFEST, PackageError, parse_manifest
from arena.bots.runtimes import runtime_problem
from arena.registry import inspect_archive
from arena.store import pack_directory
from arena.submissions.errors import SubmissionError
from arena.text import printable

CHUNK = 1 << 20
_SOURCE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")
FIELDS = ("name", "version", "language", "command", "build", "runtime", "protocol")
_WORDS = ("command", "build")  # written as a command line, stored as a list of words


def shown_name(filename: str | None) -> str:
    """The user's file name as messages show it: its last part, printable, short."""
    last = PurePosixPath((filename or "").replace("\\", "/")).name
    return printable(last, 100) or "upload"


def read_capped(upload: bytes | BinaryIO, cap: int, shown: str) -> bytes:
    """All of ``upload``, refused as soon as it passes ``cap`` bytes (never read whole)."""
    if isinstance(upload, bytes | bytearray | memoryview):
        data = bytes(upload)
        if len(data) > cap:
            raise too_big(shown, cap)
        return data
    parts, total = [], 0
    while chunk := upload.read(min(CHUNK, cap + 1 - total)):
        parts.append(chunk)
        total += len(chunk)
        if total > cap:
            raise too_big(shown, cap)
    return b"".join(parts)


def too_big(shown: str, cap: int) -> SubmissionError:
    return SubmissionError(
        f"{shown}: larger than the upload limit ({cap} bytes); leave build outputs and data out",
        413,
    )


def single_file_package(source: bytes, shown: str, fields: Mapping[str, object]) -> bytes:
    """A deterministic zip of one source file and a ``bot.toml`` made from the form fields."""
    if not _SOURCE_NAME.fullmatch(shown) or shown == MANIFEST:
        raise SubmissionError(
            f"{shown}: a source file name must be 1-100 letters, digits, '.', '_' or '-' "
            f"(and not {MANIFEST})"
        )
    manifest = _manifest_of(fields)
    text = "".join(f"{key} = {json.dumps(value)}\n" for key, value in manifest.items())
    try:
        parse_manifest(text, "the form")
    except PackageError as exc:
        raise SubmissionError(str(exc)) from None
    with tempfile.TemporaryDirectory(prefix="arena-upload-") as tmp:
        root = Path(tmp)
        (root / MANIFEST).write_text(text)
        (root / shown).write_bytes(source)
        first = manifest["command"][0]
        if first in (shown, f"./{shown}"):
            (root / shown).chmod(0o755)
        return pack_directory(root)


def _manifest_of(fields: Mapping[str, object]) -> dict:
    unknown = set(fields) - set(FIELDS)
    if unknown:
        raise SubmissionError(f"unknown form fields: {', '.join(sorted(unknown))}")
    manifest: dict[str, object] = {
        key: str(fields[key]).strip() for key in FIELDS if fields.get(key) and key not in _WORDS
    }
    for key in _WORDS:
        if (words := _words(fields.get(key), key)) is not None:
            manifest[key] = words
    if not manifest.get("command"):
        raise SubmissionError('the form: command is required, e.g. "python3 bot.py"')
    return manifest


def _words(value: object, key: str) -> list[str] | None:
    """A form's command line as the manifest's list of words (None: not given)."""
    if isinstance(value, str):
        try:
            value = shlex.split(value)
        except ValueError as exc:
            raise SubmissionError(f"the form: {key} cannot be split into words ({exc})") from None
    if not value:
        return None
    if not isinstance(value, Iterable):
        raise SubmissionError(f"the form: {key} must be text or a list of words")
    return [str(word) for word in value]


def checked_manifest(data: bytes, shown: str) -> dict:
    """The archive's manifest, after unpacking it as the platform will (in a folder that is
    removed again), naming a runtime this platform has; any problem is a
    ``SubmissionError`` naming ``shown``."""
    try:
        manifest = inspect_archive(data, shown)
    except PackageError as exc:
        raise SubmissionError(str(exc)) from None
    if problem := runtime_problem(str(manifest.get("runtime", ""))):
        raise SubmissionError(f"{shown}: bot.toml: {problem}")
    return manifest
