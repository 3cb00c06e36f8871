"""Bot packages: manifests and defensive unpacking of archives."""

from __future__ import annotations

import stat
import sys
import zipfile
from pathlib import Path

import pytest

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
