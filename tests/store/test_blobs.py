"""The content-addressed archive store and deterministic packing of bot folders."""

from __future__ import annotations

import os
import shutil
import zipfile
from io import BytesIO
from pathlib import Path

import pytest

from arena.bots.package import PackageError, load_package
from arena.config import Settings
from arena.store import BlobStore, StoreError, pack_directory, sha256_hex


def test_put_then_get_round_trips_and_names_the_file_by_its_hash(blobs: BlobStore) -> None:
    digest = blobs.put(b"archive bytes")
    assert digest == sha256_hex(b"archive bytes")
    assert blobs.path(digest) == blobs.root / digest[:2] / digest
    assert blobs.get(digest) == b"archive bytes"
    assert blobs.put(b"archive bytes") == digest  # a second put is a no-op
    assert [p.name for p in blobs.path(digest).parent.iterdir()] == [digest]  # no temp files


def test_a_corrupted_blob_is_refused_on_read(blobs: BlobStore) -> None:
    digest = blobs.put(b"good")
    blobs.path(digest).write_bytes(b"evil")
    with pytest.raises(StoreError, match="corrupt"):
        blobs.get(digest)


def test_missing_and_malformed_digests(blobs: BlobStore) -> None:
    with pytest.raises(StoreError, match="missing"):
        blobs.get("0" * 64)
    with pytest.raises(StoreError, match="not a sha256"):
        blobs.get("../../etc/passwd")
    assert not blobs.path("0" * 64).is_file()


def test_blob_root_comes_from_the_data_dir(tmp_path: Path) -> None:
    store = BlobStore.from_settings(Settings.from_env({"ARENA_DATA_DIR": str(tmp_path)}))
    assert store.root == tmp_path / "blobs"


def _bot_dir(root: Path) -> Path:
    (root / "lib").mkdir(parents=True)
    (root / "bot.toml").write_text('name = "packed"\ncommand = ["./run.sh"]\n')
    (root / "run.sh").write_text("#!/bin/sh\nexec python3 lib/main.py\n")
    (root / "run.sh").chmod(0o755)
    (root / "lib" / "main.py").write_text("print('hi')\n")
    return root


def test_packing_is_deterministic_across_copies_and_mtimes(tmp_path: Path) -> None:
    first = _bot_dir(tmp_path / "a")
    second = tmp_path / "b"
    shutil.copytree(first, second)
    os.utime(second / "lib" / "main.py", (1_000_000, 1_000_000))
    assert pack_directory(first) == pack_directory(first) == pack_directory(second)


def test_pack_keeps_the_executable_bit_and_skips_caches(tmp_path: Path) -> None:
    root = _bot_dir(tmp_path / "bot")
    for skipped in ("__pycache__", ".git", "lib/__pycache__"):
        (root / skipped).mkdir()
        (root / skipped / "junk").write_text("x")
    with zipfile.ZipFile(BytesIO(pack_directory(root))) as zf:
        names = zf.namelist()
        modes = {i.filename: i.external_attr >> 16 & 0o777 for i in zf.infolist()}
        stamps = {i.date_time for i in zf.infolist()}
    assert names == ["bot.toml", "lib/main.py", "run.sh"]
    assert modes == {"bot.toml": 0o644, "lib/main.py": 0o644, "run.sh": 0o755}
    assert stamps == {(1980, 1, 1, 0, 0, 0)}


def test_a_packed_folder_loads_as_a_package(tmp_path: Path) -> None:
    archive = tmp_path / "bot.zip"
    archive.write_bytes(pack_directory(_bot_dir(tmp_path / "bot")))
    package = load_package(archive, unpack_dir=tmp_path / "unpacked")
    assert package.name == "packed"
    assert os.access(package.root / "run.sh", os.X_OK)


def test_a_link_to_a_file_inside_is_packed_as_that_file(tmp_path: Path) -> None:
    root = _bot_dir(tmp_path / "bot")
    (root / "link.py").symlink_to(root / "lib" / "main.py")
    with zipfile.ZipFile(BytesIO(pack_directory(root))) as zf:
        assert zf.read("link.py") == zf.read("lib/main.py")
        assert {i.external_attr >> 16 & 0o170000 for i in zf.infolist()} == {0o100000}


@pytest.mark.parametrize("target", ["lib", "/etc/hostname", "../outside.txt"])
def test_links_to_folders_or_outside_are_refused(tmp_path: Path, target: str) -> None:
    root = _bot_dir(tmp_path / "bot")
    (tmp_path / "outside.txt").write_text("secret")
    (root / "link").symlink_to(root / target if target == "lib" else target)
    with pytest.raises(PackageError, match="link: a symbolic link"):
        pack_directory(root)


def test_a_folder_without_manifest_is_refused(tmp_path: Path) -> None:
    with pytest.raises(PackageError, match=r"no bot\.toml"):
        pack_directory(tmp_path)
    with pytest.raises(PackageError, match="not a directory"):
        pack_directory(tmp_path / "missing")
