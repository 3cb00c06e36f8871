"""Hostile uploads: each is refused with one line that names the contestant's own file (never
a platform folder), and nothing of it is stored: no bot, version, archive or log row, no blob,
no unpacked folder, no validation started."""

from __future__ import annotations

import io
import stat
import struct
import warnings
import zipfile
from collections.abc import Callable

import pytest

from arena.bots.package import (
    MAX_FILES,
    MAX_MANIFEST_BYTES,
    MAX_UNPACKED_BYTES,
    PackageError,
    load_package,
)
from arena.submissions import SubmissionError, submit_version
from arena.submissions.upload import shown_name
from tests.services.conftest import MANIFEST, SAMPLE_BOTS
from tests.submissions.conftest import (
    CountingReader,
    assert_nothing_stored,
    submissions,
    with_settings,
    zip_of,
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


def zip64_end(data: bytes, plain: int = 0xFFFF, zip64: int | None = None) -> bytes:
    """``data`` (a zip without a comment) ended as zip64 writers end one: a zip64 end record
    and its locator before the plain end record. ``zip64``: the count the zip64 record
    claims (default: the true one); ``plain``: the plain record's (default 0xFFFF: "see the
    zip64 record"). Its directory size is the true one (what ``zipfile`` reads)."""
    end = len(data) - 22
    entries, size, offset = struct.unpack_from("<10xHII", data, end)
    count = entries if zip64 is None else zip64
    record = struct.pack(
        "<4sQHHIIQQQQ", b"PK\x06\x06", 44, 45, 45, 0, 0, count, count, size, offset
    )
    locator = struct.pack("<4sIQI", b"PK\x06\x07", 0, end, 1)
    plain_size = 0xFFFFFFFF if plain == 0xFFFF else size
    plain_end = struct.pack(
        "<4s4H2IH", b"PK\x05\x06", 0, 0, plain, plain, plain_size, 0xFFFFFFFF, 0
    )
    return data[:end] + record + locator + plain_end


def manifest_zip(text: bytes) -> bytes:
    return build(("bot.toml", text), ("bot.py", BOT))


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
    "zip64 record hiding entries behind a small end record": (
        lambda: zip64_end(many_files(), plain=10),
        f"its end records disagree (10 and {MAX_FILES + 1} entries)",
    ),
    "zip64 and end records both lying about the count": (
        lambda: zip64_end(many_files(), plain=10, zip64=10),
        f"more than {MAX_FILES} files",
    ),
    "end record lying about the count": (
        lambda: _plain_count(many_files(), 10),
        f"more than {MAX_FILES} files",
    ),
    "manifest over 64 KiB": (
        lambda: manifest_zip(TOML + b'description = "' + b"x" * (16 << 20) + b'"\n'),
        f"bot.toml: longer than {MAX_MANIFEST_BYTES} bytes",
    ),
    "manifest nested 3000 deep": (
        lambda: manifest_zip(TOML + b"description = " + b"[" * 3000 + b"]" * 3000 + b"\n"),
        "bot.toml: not valid TOML (nested too deeply)",
    ),
    "manifest not UTF-8": (
        lambda: manifest_zip(TOML + b'description = "caf\xe9"\n'),
        "bot.toml: not UTF-8 text",
    ),
    "manifest with a number for a string": (
        lambda: manifest_zip(TOML + b"language = 3\n"),
        "bot.toml: language must be a string",
    ),
    "folders nested past the path limit": (
        lambda: build(("bot.toml", TOML), ("d/" * 2100 + "x", b"x")),
        "cannot unpack",
    ),
    "not a zip": (lambda: b"#!/bin/sh\nrm -rf /\n", "not a directory or a zip archive"),
    "no manifest": (lambda: build(("bot.py", BOT)), "no bot.toml"),
    "manifest that is not TOML": (lambda: build(("bot.toml", b"name = \n")), "not valid TOML"),
}


def _plain_count(data: bytes, count: int) -> bytes:
    """A zip whose (plain, only) end record claims ``count`` entries."""
    end = len(data) - 22
    return data[: end + 8] + struct.pack("<HH", count, count) + data[end + 12 :]


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


class CountingZipFile(zipfile.ZipFile):
    """``zipfile.ZipFile``, counting how often one is opened."""

    opened = 0

    def __init__(self, *args, **kwargs) -> None:
        type(self).opened += 1
        super().__init__(*args, **kwargs)


@pytest.mark.parametrize(
    "case",
    [
        "zip64 record hiding entries behind a small end record",
        "zip64 and end records both lying about the count",
        "end record lying about the count",
    ],
)
def test_an_archive_lying_about_its_entries_is_refused_before_zipfile_reads_it(
    tmp_path, monkeypatch, case
):
    """``zipfile`` would parse every entry of the directory (300,000 took 13 s): the check
    refuses before any ``ZipFile`` is made, whichever end record lies."""
    make, fragment = HOSTILE[case]
    path = tmp_path / "evil.zip"
    path.write_bytes(make())
    with zipfile.ZipFile(path) as zf:  # what zipfile itself would find: past the cap
        assert len(zf.infolist()) == MAX_FILES + 1
    monkeypatch.setattr(zipfile, "ZipFile", CountingZipFile)
    with pytest.raises(PackageError) as err:
        load_package(path, tmp_path / "unpacked", shown="evil.zip")
    assert str(err.value).startswith("evil.zip: ") and fragment in str(err.value)
    assert CountingZipFile.opened == 0


def test_end_records_that_disagree_are_refused_even_under_the_cap(tmp_path):
    path = tmp_path / "odd.zip"
    honest = manifest_zip(TOML)
    path.write_bytes(zip64_end(honest, plain=3, zip64=2))
    with pytest.raises(PackageError, match=r"odd.zip: its end records disagree \(3 and 2 "):
        load_package(path, tmp_path / "unpacked", shown="odd.zip")


def test_an_honest_zip64_archive_of_a_bot_is_accepted(tmp_path):
    """What zip64 writers produce (a zip64 end record, the plain one deferring to it)."""
    path = tmp_path / "random64.zip"
    path.write_bytes(zip64_end(zip_of(SAMPLE_BOTS / "random")))
    with zipfile.ZipFile(path) as zf:
        assert zf.testzip() is None
    package = load_package(path, tmp_path / "unpacked", shown="random64.zip")
    assert (package.name, package.command) == ("random", ("python3", "bot.py"))
    assert (package.root / "bot.py").is_file()
