"""Hostile uploads: each is refused with one line that names the contestant's own file (never
a platform folder), and nothing of it is stored: no bot, version, archive or log row, no blob,
no unpacked folder, no validation started. Every case runs on SQLite and on Postgres."""

from __future__ import annotations

import io
import stat
import struct
import warnings
import zipfile
from collections.abc import Callable

import pytest

from arena.bots.package import MAX_FILES, MAX_UNPACKED_BYTES
from arena.submissions import SubmissionError, submit_version
from arena.submissions.upload import shown_name
from tests.services.conftest import MANIFEST, SAMPLE_BOTS
from tests.submissions.conftest import (
    CountingReader,
    assert_nothing_stored,
    submissions,
    with_settings,
)

TOML = MANIFEST.format(name="hostile", version="1.0").encode()
BOT = (SAMPLE_BOTS / "random" / "bot.py").read_bytes()


def build(*entries: tuple[str, bytes] | zipfile.ZipInfo, method=zipfile.ZIP_DEFLATED) -> bytes:
    """A zip of (name, data) pairs and ready-made ``ZipInfo`` entries (written empty)."""
    buffer = io.BytesIO()
    with warnings.catch_warnings(), zipfile.ZipFile(buffer, "w", method) as zf:
        warnings.simplefilter("ignore", UserWarning)  # "Duplicate name": on purpose
        for entry in entries:
            if isinstance(entry, zipfile.ZipInfo):
                zf.writestr(entry, b"/etc/passwd" if _is_link(entry) else b"")
            else:
                zf.writestr(*entry)
    return buffer.getvalue()


def _is_link(info: zipfile.ZipInfo) -> bool:
    return stat.S_ISLNK(info.external_attr >> 16)


def special(name: str, kind: int) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.create_system = 3
    info.external_attr = (kind | 0o644) << 16
    return info


def central_patch(data: bytes, name: str, offset: int, fmt: str, value: int) -> bytes:
    """Overwrite a field of ``name``'s central directory record (what readers trust)."""
    out = bytearray(data)
    at = out.find(b"PK\x01\x02")
    while at >= 0:
        length = struct.unpack_from("<H", out, at + 28)[0]
        if out[at + 46 : at + 46 + length] == name.encode():
            struct.pack_into(fmt, out, at + offset, value)
            return bytes(out)
        at = out.find(b"PK\x01\x02", at + 1)
    raise AssertionError(f"{name} not in the central directory")


def bomb(claimed: int | None = None) -> bytes:
    """Zeros that unpack to one byte over the cap; ``claimed``: the size its header states."""
    data = build(("bot.toml", TOML), ("weights.bin", bytes(MAX_UNPACKED_BYTES + 1)))
    return data if claimed is None else central_patch(data, "weights.bin", 24, "<I", claimed)


def encrypted() -> bytes:
    data = build(("bot.toml", TOML), ("bot.py", BOT))
    flags = struct.unpack_from("<H", data, data.find(b"PK\x01\x02") + 8)[0]
    return central_patch(data, "bot.py", 8, "<H", flags | 0x1)


def many_files() -> bytes:
    return build(("bot.toml", TOML), *((f"f/{i}", b"") for i in range(MAX_FILES)))


HOSTILE: dict[str, tuple[Callable[[], bytes], str]] = {
    "zip slip": (lambda: build(("bot.toml", TOML), ("../evil.py", b"x")), "escapes"),
    "zip slip inside a folder": (
        lambda: build(("bot.toml", TOML), ("lib/../../evil.py", b"x")),
        "escapes",
    ),
    "absolute path": (lambda: build(("bot.toml", TOML), ("/etc/cron.d/evil", b"x")), "escapes"),
    "backslash path": (lambda: build(("bot.toml", TOML), ("..\\evil.py", b"x")), "uses '\\'"),
    "symlink out": (
        lambda: build(("bot.toml", TOML), special("data", stat.S_IFLNK)),
        "'data' is a symbolic link",
    ),
    "symlinked bot.toml": (
        lambda: build(special("bot.toml", stat.S_IFLNK), ("bot.py", BOT)),
        "'bot.toml' is a symbolic link",
    ),
    "device entry": (
        lambda: build(("bot.toml", TOML), special("tty", stat.S_IFCHR)),
        "'tty' is not a plain file or folder",
    ),
    "fifo entry": (
        lambda: build(("bot.toml", TOML), special("pipe", stat.S_IFIFO)),
        "'pipe' is not a plain file or folder",
    ),
    "duplicate names": (
        lambda: build(("bot.toml", TOML), ("bot.py", b"x"), ("./bot.py", BOT)),
        "appears twice",
    ),
    "duplicate manifest": (
        lambda: build(("bot.toml", TOML), ("bot.toml", TOML.replace(b"hostile", b"other"))),
        "'bot.toml' appears twice",
    ),
    "control characters in a name": (
        lambda: build(("bot.toml", TOML), ("bot\x1b[2J.py", b"x")),
        "control characters",
    ),
    "encrypted entry": (encrypted, "'bot.py' is encrypted"),
    "unsupported compression": (
        lambda: build(("bot.toml", TOML), method=zipfile.ZIP_BZIP2),
        "unsupported compression",
    ),
    "zip bomb": (lambda: bomb(), f"unpacks to more than the size limit ({MAX_UNPACKED_BYTES}"),
    "zip bomb with a lying header size": (lambda: bomb(claimed=100), "cannot unpack"),
    "file count over the cap": (many_files, f"more than {MAX_FILES} files"),
    "folders nested past the path limit": (
        lambda: build(("bot.toml", TOML), ("d/" * 2100 + "x", b"x")),
        "cannot unpack",
    ),
    "not a zip": (lambda: b"#!/bin/sh\nrm -rf /\n", "not a directory or a zip archive"),
    "no manifest": (lambda: build(("bot.py", BOT)), "no bot.toml"),
    "manifest that is not TOML": (lambda: build(("bot.toml", b"name = \n")), "not valid TOML"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_hostile_archive_is_refused_clearly_and_nothing_is_stored(
    db, store_runtime, alice, recorder, case
):
    make, fragment = HOSTILE[case]
    with pytest.raises(SubmissionError) as err:
        submit_version(db, store_runtime, alice.id, make(), filename="evil.zip", validate=recorder)
    message = str(err.value)
    assert err.value.status == 400, message
    assert message.startswith("evil.zip: ") and fragment in message, message
    assert "\n" not in message
    for internal in (str(store_runtime.settings.data_dir), "/tmp", "arena-inspect", "bot.zip"):
        assert internal not in message
    assert_nothing_stored(db, store_runtime)
    assert recorder.started == []
    [row] = submissions(db)  # the refusal is remembered (it counts toward the hourly limit)
    assert (row.bot_version_id, row.error) == (None, message)


def test_the_bombs_really_are_small_and_over_the_cap():
    """The bomb cases test what they claim: small uploads that expand past the cap."""
    honest, lying = bomb(), bomb(claimed=100)
    assert len(honest) < MAX_UNPACKED_BYTES // 500 and len(lying) == len(honest)
    with zipfile.ZipFile(io.BytesIO(honest)) as zf:
        assert zf.getinfo("weights.bin").file_size == MAX_UNPACKED_BYTES + 1
    with zipfile.ZipFile(io.BytesIO(lying)) as zf:
        assert zf.getinfo("weights.bin").file_size == 100
    with zipfile.ZipFile(io.BytesIO(many_files())) as zf:
        assert len(zf.infolist()) == MAX_FILES + 1


def test_an_upload_over_the_cap_is_refused_while_reading(db, store_runtime, alice, recorder):
    cap = 1 << 20
    runtime = with_settings(store_runtime, max_upload=cap)
    stream = CountingReader(50 * cap)
    with pytest.raises(SubmissionError) as err:
        submit_version(db, runtime, alice.id, stream, filename="huge.zip", validate=recorder)
    assert err.value.status == 413
    assert str(err.value).startswith(f"huge.zip: larger than the upload limit ({cap} bytes)")
    assert stream.read_bytes == cap + 1  # stopped at the first byte over, not read whole
    assert_nothing_stored(db, runtime)
    assert recorder.started == []


def test_an_upload_of_exactly_the_cap_is_read(db, store_runtime, alice, recorder):
    """The cap is inclusive: the refusal above is the size, not the reading."""
    data = build(("bot.toml", TOML), ("bot.py", BOT))
    runtime = with_settings(store_runtime, max_upload=len(data))
    version_id = submit_version(
        db, runtime, alice.id, io.BytesIO(data), filename="ok.zip", validate=recorder
    )
    assert recorder.started == [version_id]


@pytest.mark.parametrize(
    ("sent", "shown"),
    [
        ("mybot.zip", "mybot.zip"),
        ("/home/me/bots/mybot.zip", "mybot.zip"),
        ("C:\\Users\\me\\mybot.zip", "mybot.zip"),
        ("../../etc/passwd", "passwd"),
        ("\x1b]0;pwned\x07bot.zip", "]0;pwnedbot.zip"),
        ("", "upload"),
        (None, "upload"),
        ("x" * 300 + ".zip", "x" * 99 + "…"),
    ],
)
def test_messages_show_only_the_last_part_of_the_file_name_printable_and_short(sent, shown):
    assert shown_name(sent) == shown
