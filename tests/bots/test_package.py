"""Bot packages: manifests and defensive unpacking of archives."""

from __future__ import annotations

import io
import stat
import struct
import sys
import tempfile
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.bots.package import PackageError, load_package, parse_manifest

GOOD = 'name = "lowest"\nversion = "1.0"\ncommand = ["python3", "bot.py"]\n'


def make_zip(path: Path, entries: dict[str, bytes], links: dict[str, str] | None = None) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
        for name, target in (links or {}).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            zf.writestr(info, target)
    return path


def test_a_directory_package(tmp_path):
    (tmp_path / "bot.toml").write_text(GOOD)
    package = load_package(tmp_path)
    assert (package.name, package.version, package.command) == (
        "lowest",
        "1.0",
        ("python3", "bot.py"),
    )
    assert package.launch_command() == [sys.executable, "bot.py"]
    assert len(package.sha256) == 64


def test_a_zip_unpacks_once_under_its_hash(tmp_path):
    archive = make_zip(
        tmp_path / "b.zip", {"lowest/bot.toml": GOOD.encode(), "lowest/bot.py": b"pass"}
    )
    first = load_package(archive, tmp_path / "cache")
    assert (
        first.root.parent.name == first.sha256 and (first.root / "bot.py").read_bytes() == b"pass"
    )
    assert load_package(archive, tmp_path / "cache").root == first.root


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        ({"../evil.py": b"x", "bot.toml": GOOD.encode()}, "escapes"),
        ({"/etc/evil": b"x", "bot.toml": GOOD.encode()}, "escapes"),
        ({"bot.py": b"x"}, "no bot.toml"),
        ({"bot.toml": b"name = 'x'\n"}, "command must be"),
        ({"bot.toml": b"name = \n"}, "not valid TOML"),
        ({"bot.toml": GOOD.encode() + b"colour = 'red'\n"}, "unknown keys colour"),
        ({"bot.toml": GOOD.encode() + b"build = 'make'\n"}, "build must be a list of strings"),
        ({"bot.toml": GOOD.encode() + b"build = []\n"}, "build must be a list of strings"),
        ({"bot.toml": GOOD.encode() + b"build = ['make', 2]\n"}, "build must be a list"),
    ],
)
def test_bad_archives_get_a_one_line_reason(tmp_path, entries, message):
    archive = make_zip(tmp_path / "b.zip", entries)
    with pytest.raises(PackageError, match=message) as err:
        load_package(archive, tmp_path / "cache")
    assert "\n" not in str(err.value)
    assert not any(p.name.endswith(".partial") for p in (tmp_path / "cache").glob("*"))


def test_symlinks_are_refused(tmp_path):
    archive = make_zip(
        tmp_path / "b.zip", {"bot.toml": GOOD.encode()}, links={"db": "/work/arena.db"}
    )
    with pytest.raises(PackageError, match="symbolic link"):
        load_package(archive, tmp_path / "cache")


def test_the_size_cap_counts_bytes_written(tmp_path):
    archive = make_zip(tmp_path / "b.zip", {"bot.toml": GOOD.encode(), "big.bin": b"\0" * 200_000})
    with pytest.raises(PackageError, match="size limit"):
        load_package(archive, tmp_path / "cache", max_bytes=100_000)
    assert not list((tmp_path / "cache").glob("*/big.bin"))


def test_not_an_archive(tmp_path):
    (tmp_path / "bot.tar").write_bytes(b"hello")
    with pytest.raises(PackageError, match="not a directory or a zip"):
        load_package(tmp_path / "bot.tar")
    with pytest.raises(PackageError, match="no such bot"):
        load_package(tmp_path / "missing")


@pytest.mark.parametrize("name", ["", "a b", "../x", "x" * 65, "x\\n"])
def test_bad_names(name):
    with pytest.raises(PackageError, match="name must be"):
        parse_manifest(f'name = "{name}"\ncommand = ["x"]\n')


@pytest.mark.parametrize(
    "version", ["", "[bold red]pwned[/]", "1.0\x1b[2J", "v 1", "-1", "x" * 65, "1.0\n"]
)
def test_versions_are_refused_unless_plain(version):
    """The version is shown on terminals and pages: no markup, controls or spaces."""
    text = f'name = "a"\nversion = {version!r}\ncommand = ["x"]\n'.replace("'", '"')
    with pytest.raises(PackageError, match="version must be 1-64 letters"):
        parse_manifest(text.replace("\\x1b", "\\u001b"))


@pytest.mark.parametrize("version", ["1", "1.0.2", "2.0.0-rc.1+build.5", "x" * 64])
def test_plain_versions_are_accepted(version):
    assert parse_manifest(f'name = "a"\nversion = "{version}"\ncommand = ["x"]\n')


def _small_zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("bot.toml", GOOD)
        zf.writestr("bot.py", b"import random\n" * 50)
        zf.writestr("lib/", b"")
        zf.writestr("lib/x.py", b"x" * 5000)
    return buffer.getvalue()


SMALL_ZIP = _small_zip()


def _patched(offset_in_record: int, fmt: str, value: int, name: bytes = b"bot.py") -> bytes:
    """SMALL_ZIP with one field of ``name``'s central directory record changed."""
    data = bytearray(SMALL_ZIP)
    at = data.find(b"PK\x01\x02")
    while data[at + 46 : at + 46 + struct.unpack_from("<H", data, at + 28)[0]] != name:
        at = data.find(b"PK\x01\x02", at + 1)
    struct.pack_into(fmt, data, at + offset_in_record, value)
    return bytes(data)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (  # flagged UTF-8 (bit 11), with a name that is not UTF-8
            _patched(8, "<H", 0x800).replace(b"bot.py", b"bot\xf8py"),
            "cannot unpack",
        ),
        (_patched(6, "<H", 104), "cannot unpack"),  # "version needed to extract" 10.4
    ],
    ids=["invalid utf-8 name", "unsupported zip version"],
)
def test_archives_zipfile_cannot_read_are_refused_not_crashed(tmp_path, data, message):
    (tmp_path / "b.zip").write_bytes(data)
    with pytest.raises(PackageError, match=message) as err:
        load_package(tmp_path / "b.zip", tmp_path / "cache", shown="b.zip")
    assert str(err.value).startswith("b.zip: ") and "\n" not in str(err.value)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(st.integers(0, len(SMALL_ZIP) - 1), st.integers(0, 255)), min_size=1, max_size=8
    ),
    st.booleans(),
)
def test_a_mangled_archive_is_refused_in_one_line_or_unpacked_never_a_crash(changes, in_directory):
    """Random bytes changed anywhere (or only in the central directory, what readers trust)."""
    data = bytearray(SMALL_ZIP)
    start = data.find(b"PK\x01\x02") if in_directory else 0
    for at, value in changes:
        data[start + at % (len(data) - start)] = value
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "b.zip").write_bytes(data)
        try:
            load_package(Path(tmp) / "b.zip", Path(tmp) / "cache", shown="b.zip")
        except PackageError as exc:
            assert str(exc).startswith("b.zip") and "\n" not in str(exc)


def test_manifest_problems_name_the_archive_and_the_place_inside_it(tmp_path):
    bad = GOOD + "colour = 1\n"
    flat = make_zip(tmp_path / "flat.zip", {"bot.toml": bad.encode()})
    nested = make_zip(tmp_path / "nested.zip", {"mybot/bot.toml": bad.encode()})
    for archive, inside in ((flat, "bot.toml"), (nested, "mybot/bot.toml")):
        with pytest.raises(PackageError) as err:
            load_package(archive, tmp_path / "cache", shown="upload.zip")
        assert str(err.value).startswith(f"upload.zip: {inside}: unknown keys colour")
        assert str(tmp_path) not in str(err.value)
