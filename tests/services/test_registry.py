"""Registering bots: the validation match, idempotent re-registration, refused packages
(nothing stored), links inside a bot folder, house bots as versions, players for versions."""

from __future__ import annotations

import io
import os
import stat
import tomllib
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from sqlalchemy import select

from arena.bots.package import MAX_UNPACKED_BYTES, PackageError
from arena.bots.process_player import ProcessPlayer
from arena.house.names import UnknownHouseBot
from arena.players.inprocess import InProcessPlayer
from arena.registry import house_version, player_for, register_bot
from arena.registry import validation as registry
from arena.registry.validation_match import OPPONENTS
from arena.runtime import Runtime
from arena.store import Bot, BotArchive, BotVersion, Database, StoreError, find_bot_version
from tests.services.conftest import (
    BAD_BOTS,
    MANIFEST,
    SAMPLE_BOTS,
    counts,
    good_entries,
    make_zip,
    sample_copy,
    write_zip_bomb,
)

BOT_TABLES = (Bot, BotVersion)
NOTHING = {"bots": 0, "bot_versions": 0}
# one bot validated: it and the house bots of its validation match, stored versions too
WITH_OPPONENTS = {"bots": 1 + len(OPPONENTS), "bot_versions": 1 + len(OPPONENTS)}


def forbid_validation(monkeypatch: pytest.MonkeyPatch) -> None:
    def validated_again(*_args):
        raise AssertionError("a second validation match was played")

    monkeypatch.setattr(registry, "validation_problem", validated_again)


def list_versions(db: Database) -> list[BotVersion]:
    with db.session(read_only=True) as s:
        return list(s.scalars(select(BotVersion).order_by(BotVersion.id)))


def stored(db: Database, version_id: int) -> BotVersion:
    with db.session(read_only=True) as s:
        return s.get(BotVersion, version_id)


# --------------------------------------------------------------------------- validation


def test_a_good_bot_is_valid_and_registering_it_again_returns_the_same_row(
    db, runtime, tmp_path, monkeypatch
):
    first = register_bot(db, runtime, SAMPLE_BOTS / "random")
    assert (first.ref, first.status, first.reason) == ("random@1.0.0", "valid", "")
    assert first.manifest["command"] == ["python3", "bot.py"]
    assert runtime.blobs.path(first.sha256).is_file()
    assert stored(db, first.id).status == "valid"

    forbid_validation(monkeypatch)
    again = register_bot(db, runtime, SAMPLE_BOTS / "random")
    assert (again.id, again.status) == (first.id, "valid")
    # The stored archive itself, uploaded as a zip, is the same version too.
    archive = tmp_path / "random.zip"
    archive.write_bytes(runtime.blobs.get(first.sha256))
    assert register_bot(db, runtime, archive).id == first.id
    assert counts(db, BOT_TABLES) == WITH_OPPONENTS
    with db.session(read_only=True) as s:
        assert find_bot_version(s, "random").id == first.id


@pytest.mark.parametrize(
    ("folder", "fragments"),
    [
        (
            "crash_at_start",
            ["start_failed", "exit status 3", "crash-at-start: no model file here"],
        ),
        ("illegal_card", ["illegal_card: ", "is not legal here (legal: "]),
    ],
)
def test_a_faulty_bot_is_rejected_with_the_fault_as_reason(
    db, runtime, monkeypatch, folder, fragments
):
    version = register_bot(db, runtime, BAD_BOTS / folder)
    assert version.status == "rejected"
    assert version.reason.startswith("validation match: ")
    assert "\n" not in version.reason
    for fragment in fragments:
        assert fragment in version.reason
    assert (stored(db, version.id).status, stored(db, version.id).reason) == (
        "rejected",
        version.reason,
    )
    name = version.manifest["name"]
    with db.session(read_only=True) as s, pytest.raises(StoreError, match="no valid version"):
        find_bot_version(s, name)

    forbid_validation(monkeypatch)  # judged once: the same files keep their verdict
    assert register_bot(db, runtime, BAD_BOTS / folder).id == version.id
    assert counts(db, BOT_TABLES) == WITH_OPPONENTS


def test_a_trusted_bot_is_valid_without_a_match(db, runtime, monkeypatch):
    forbid_validation(monkeypatch)
    version = register_bot(db, runtime, BAD_BOTS / "crash_at_start", validate=False)
    assert (version.status, version.reason) == ("valid", "")
    assert stored(db, version.id).status == "valid"


def test_a_bot_left_pending_by_a_stopped_validation_is_judged_when_registered_again(
    db, runtime, monkeypatch
):
    def stopped(*_args):
        raise KeyboardInterrupt

    with monkeypatch.context() as patch:
        patch.setattr(registry, "validation_problem", stopped)
        with pytest.raises(KeyboardInterrupt):
            register_bot(db, runtime, BAD_BOTS / "crash_at_start")
    [row] = [v for v in list_versions(db) if "house" not in v.manifest]
    assert (row.status, row.reason) == ("pending", "")
    with db.session(read_only=True) as s, pytest.raises(StoreError, match="no valid version"):
        find_bot_version(s, "services-crash-at-start")

    judged = register_bot(db, runtime, BAD_BOTS / "crash_at_start")
    assert (judged.id, judged.status) == (row.id, "rejected")
    assert "start_failed" in judged.reason


# --------------------------------------------------------------------------- refused packages


def _missing(tmp: Path) -> Path:
    return tmp / "no-such-bot"


def _folder(files: dict[str, str]) -> Callable[[Path], Path]:
    def build(tmp: Path) -> Path:
        root = tmp / "bot"
        root.mkdir()
        for name, text in files.items():
            (root / name).write_text(text)
        return root

    return build


def _zip(entries: dict[str, bytes], links: dict[str, str] | None = None):
    def build(tmp: Path) -> Path:
        return make_zip(tmp / "bot.zip", entries, links)

    return build


def _not_a_zip(tmp: Path) -> Path:
    path = tmp / "bot.zip"
    path.write_text("this is not a zip archive\n")
    return path


def _link_outside(tmp: Path) -> Path:
    root = _folder(good_strs())(tmp)
    (tmp / "secret.txt").write_text("outside the bot\n")
    (root / "secret.txt").symlink_to(tmp / "secret.txt")
    return root


def _link_to_folder(tmp: Path) -> Path:
    root = _folder(good_strs())(tmp)
    (root / "lib").mkdir()
    (root / "lib" / "util.py").write_text("X = 1\n")
    (root / "lib2").symlink_to("lib", target_is_directory=True)
    return root


def _fifo(tmp: Path) -> Path:
    root = _folder(good_strs())(tmp)
    os.mkfifo(root / "pipe")
    return root


def good_strs() -> dict[str, str]:
    return {name: data.decode() for name, data in good_entries().items()}


GOOD_TOML = MANIFEST.format(name="broken", version="1.0")
REFUSED = {
    "unknown path": (_missing, "no such bot directory or archive"),
    "folder without manifest": (_folder({"bot.py": "pass\n"}), "no bot.toml"),
    "manifest not TOML": (_folder({"bot.toml": "name = \n"}), "not valid TOML"),
    "manifest unknown key": (
        _folder({"bot.toml": GOOD_TOML + 'colour = "red"\n'}),
        "unknown keys colour",
    ),
    "manifest without command": (_folder({"bot.toml": 'name = "x"\n'}), "command must be"),
    "manifest bad name": (
        _folder({"bot.toml": GOOD_TOML.replace("broken", "no spaces")}),
        "name must be",
    ),
    "not a zip": (_not_a_zip, "not a directory or a zip archive"),
    "zip escaping": (_zip({**good_entries(), "../evil.py": b"x"}), "escapes"),
    "zip absolute": (_zip({**good_entries(), "/etc/evil.py": b"x"}), "escapes"),
    "zip symlink": (_zip(good_entries(), {"data.db": "/etc/passwd"}), "symbolic link"),
    "zip without manifest": (_zip({"bot.py": b"pass\n"}), "no bot.toml"),
    "folder link outside": (_link_outside, "symbolic link"),
    "folder link to folder": (_link_to_folder, "symbolic link to a folder"),
    "folder with a fifo": (_fifo, "not a regular file"),
}


def assert_nothing_stored(db: Database, runtime: Runtime) -> None:
    assert counts(db, BOT_TABLES) == NOTHING
    blobs = runtime.blobs.root
    assert not blobs.exists() or not any(p.is_file() for p in blobs.rglob("*"))
    unpacked = runtime.unpack_dir
    assert not unpacked.exists() or not any(p.name.endswith(".partial") for p in unpacked.iterdir())


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_a_refused_package_is_one_line_and_stores_nothing(db, runtime, tmp_path, case):
    build, message = REFUSED[case]
    source = tmp_path / "source"
    source.mkdir()
    with pytest.raises(PackageError, match=message) as err:
        register_bot(db, runtime, build(source))
    assert "\n" not in str(err.value)
    assert_nothing_stored(db, runtime)


@pytest.fixture(scope="session")
def zip_bomb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_zip_bomb(tmp_path_factory.mktemp("bomb") / "bomb.zip")


def test_an_archive_over_the_size_cap_is_refused_and_stores_nothing(db, runtime, zip_bomb):
    assert zip_bomb.stat().st_size < MAX_UNPACKED_BYTES // 100
    with pytest.raises(PackageError, match=f"size limit \\({MAX_UNPACKED_BYTES} bytes\\)") as err:
        register_bot(db, runtime, zip_bomb)
    assert "\n" not in str(err.value)
    assert_nothing_stored(db, runtime)


def test_a_folder_over_the_size_cap_is_refused_and_stores_nothing(
    db, runtime, tmp_path, monkeypatch
):
    monkeypatch.setattr("arena.store.blobs.MAX_UNPACKED_BYTES", 10_000)
    root = sample_copy(tmp_path / "big", "big")
    (root / "weights.bin").write_bytes(bytes(20_000))
    with pytest.raises(PackageError, match="more than 10000 bytes") as err:
        register_bot(db, runtime, root)
    assert "\n" not in str(err.value)
    assert_nothing_stored(db, runtime)


def test_a_version_too_long_to_store_is_refused_and_writes_no_row(db, runtime, tmp_path):
    root = sample_copy(tmp_path / "long", "long", version="9" * 65)
    with pytest.raises(PackageError, match="version must be 1-64") as err:
        register_bot(db, runtime, root)
    assert "\n" not in str(err.value)
    assert counts(db, BOT_TABLES) == NOTHING


def test_new_files_under_a_taken_version_are_refused_without_a_match(
    db, runtime, tmp_path, monkeypatch
):
    root = sample_copy(tmp_path / "mine", "mine")
    first = register_bot(db, runtime, root, validate=False)
    (root / "bot.py").write_text((root / "bot.py").read_text() + "\n# changed\n")
    forbid_validation(monkeypatch)
    with pytest.raises(StoreError, match=r"mine@1\.0 already exists with different files"):
        register_bot(db, runtime, root)
    assert counts(db, BOT_TABLES) == {"bots": 1, "bot_versions": 1}
    assert stored(db, first.id).sha256 == first.sha256


# --------------------------------------------------------------------------- links


def test_a_link_to_a_file_inside_the_bot_is_packed_as_that_file(db, runtime, tmp_path):
    root = sample_copy(tmp_path / "linked", "linked")
    (root / "data").mkdir()
    (root / "data" / "book.txt").write_text("opening book\n")
    (root / "book.txt").symlink_to("data/book.txt")
    (root / "data" / "play.py").symlink_to(root / "bot.py")  # absolute, still inside

    version = register_bot(db, runtime, root, validate=False)
    with zipfile.ZipFile(io.BytesIO(runtime.blobs.get(version.sha256))) as zf:
        for name, source in (("book.txt", "data/book.txt"), ("data/play.py", "bot.py")):
            mode = zf.getinfo(name).external_attr >> 16
            assert stat.S_ISREG(mode) and not stat.S_ISLNK(mode)
            assert zf.read(name) == (root / source).read_bytes()

    player = player_for(db, runtime, version, seed=1, log_dir=tmp_path / "logs")
    assert isinstance(player, ProcessPlayer)
    unpacked = player.package.root
    assert unpacked.is_relative_to(runtime.unpack_dir)
    assert not (unpacked / "book.txt").is_symlink()
    assert (unpacked / "book.txt").read_text() == "opening book\n"
    # Packing is deterministic: the same folder is the same version.
    assert register_bot(db, runtime, root, validate=False).id == version.id


# --------------------------------------------------------------------------- house bots


def test_house_versions_are_created_once_per_house_bot(db, runtime):
    heuristic = house_version(db, runtime, "house:heuristic")
    assert (heuristic.ref, heuristic.status) == ("house-heuristic", "valid")  # one version
    assert heuristic.manifest["house"] == "heuristic"
    assert house_version(db, runtime, "house:heuristic").id == heuristic.id

    second = house_version(db, runtime, "house:heuristic#2")
    rand = house_version(db, runtime, "house:random")
    assert (second.ref, second.manifest["house"]) == ("house-heuristic-2", "heuristic")
    assert (rand.ref, rand.manifest["house"]) == ("house-random", "random")
    assert len({heuristic.id, second.id, rand.id}) == 3
    assert counts(db, BOT_TABLES) == {"bots": 3, "bot_versions": 3}

    with pytest.raises(UnknownHouseBot, match="unknown house bot 'house:nope'") as err:
        house_version(db, runtime, "house:nope")
    assert "\n" not in str(err.value)
    assert counts(db, BOT_TABLES) == {"bots": 3, "bot_versions": 3}


def test_players_for_versions(db, runtime, tmp_path):
    house = player_for(db, runtime, house_version(db, runtime, "house:random"), 5, tmp_path)
    assert isinstance(house, InProcessPlayer)
    assert house.name == "house-random"  # as play and the standings call it

    version = register_bot(db, runtime, SAMPLE_BOTS / "heuristic", validate=False)
    player = player_for(db, runtime, version, 5, tmp_path / "logs")
    assert isinstance(player, ProcessPlayer)
    assert (player.name, player.package.sha256) == ("heuristic@1.0.0", version.sha256)

    # A cached archive changed on disk is fetched again from the database, never run.
    runtime.blobs.path(version.sha256).write_bytes(b"tampered")
    assert player_for(db, runtime, version, 5, tmp_path / "logs").package.sha256 == version.sha256
    assert runtime.blobs.get(version.sha256) != b"tampered"
    # An archive changed in the database is caught before it is unpacked or run.
    with db.session() as s:
        s.get(BotArchive, version.sha256).data = b"tampered"
    runtime.blobs.discard(version.sha256)
    with pytest.raises(StoreError, match="corrupt"):
        player_for(db, runtime, version, 5, tmp_path / "logs")


def test_a_match_starts_a_bot_from_its_stored_manifest_without_reading_bot_toml(
    db, store_runtime, tmp_path, monkeypatch
):
    """bot.toml is parsed once, at registration (a 16-MiB description was parsed again at
    every match start: 12-16 s each): a changed file on disk is not read, nothing parsed."""
    folder = sample_copy(tmp_path / "bot", "stored")
    version = register_bot(db, store_runtime, folder, validate=False)
    unpacked = store_runtime.unpack_dir / version.sha256 / "bot.toml"
    unpacked.write_text('name = "other"\ncommand = [')  # neither the stored bot nor TOML
    parses = []
    monkeypatch.setattr(tomllib, "loads", lambda *args: parses.append(args))
    player = player_for(db, store_runtime, version, 5, tmp_path / "logs")
    assert isinstance(player, ProcessPlayer) and parses == []
    assert (player.package.name, player.package.command) == ("stored", ("python3", "bot.py"))
    assert player.package.manifest == version.manifest
