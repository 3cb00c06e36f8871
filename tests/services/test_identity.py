"""A bot is its files: however they are packed (the folder, a zip of it, a re-zip with other
timestamps and order, a zip holding the folder itself), registering them gives one version.
A rejected version's number is free for a fixed upload, and the rejection stays in the
history. Errors name the user's paths; a ``runtime`` this machine lacks is refused. The
validation matches run the bots for real in the sandbox."""

from __future__ import annotations

import os
import shutil
import zipfile
from pathlib import Path

import pytest
from sqlalchemy import select

from arena.bots.package import PackageError
from arena.bots.runtimes import available_runtimes, runtime_problem
from arena.registry import register_bot
from arena.store import BotVersion, find_bot_version
from arena.store.blobs import pack_directory, tree_digest
from arena.store.models import BotRejection
from tests.services.conftest import MANIFEST, SAMPLE_BOTS, sample_copy


def zip_folder(folder: Path, out: Path, *, inside: str = "", reverse: bool = False) -> Path:
    """Zip ``folder``'s files (under ``inside/`` if given), in reverse order if asked, with
    the timestamps and modes a zip tool would record."""
    files = sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED if reverse else zipfile.ZIP_DEFLATED) as zf:
        for path in reversed(files) if reverse else files:
            zf.write(path, str(Path(inside) / path.relative_to(folder)))
    return out


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return sample_copy(tmp_path / "mybot", "mybot")


def test_every_packing_of_the_same_files_has_one_identity(folder, tmp_path):
    zipped = zip_folder(folder, tmp_path / "a.zip")
    os.utime(folder / "bot.py", (1_600_000_000, 1_600_000_000))  # a re-zip: other times and order
    rezipped = zip_folder(folder, tmp_path / "b.zip", reverse=True)
    wrapped = zip_folder(folder, tmp_path / "c.zip", inside="mybot")  # zip of the folder
    packs = [pack_directory(folder), *(p.read_bytes() for p in (zipped, rezipped, wrapped))]
    assert len({p for p in packs}) == 4  # four different archives...
    assert len({tree_digest(p) for p in packs}) == 1  # ...one bot
    (folder / "bot.py").write_text((folder / "bot.py").read_text() + "\n# changed\n")
    assert tree_digest(pack_directory(folder)) != tree_digest(packs[0])  # bytes count
    (folder / "bot.py").rename(folder / "main.py")
    assert tree_digest(pack_directory(folder)) != tree_digest(packs[0])  # paths count


def test_re_adding_the_same_bot_packed_differently_returns_its_version(
    db, store_runtime, folder, tmp_path
):
    first = register_bot(db, store_runtime, folder, validate=False)
    for i, archive in enumerate(
        [
            zip_folder(folder, tmp_path / "a.zip"),
            zip_folder(folder, tmp_path / "b.zip", reverse=True),
            zip_folder(folder, tmp_path / "c.zip", inside="anything"),
        ]
    ):
        again = register_bot(db, store_runtime, archive, validate=False)
        assert (again.id, again.ref) == (first.id, "mybot@1.0"), i
    with db.session(read_only=True) as s:
        assert len(s.scalars(select(BotVersion)).all()) == 1


def test_a_version_stored_before_trees_is_matched_by_its_files(db, store_runtime, folder, tmp_path):
    """Rows from before migration 0005 have no tree: a re-zip of their files still finds them."""
    first = register_bot(db, store_runtime, folder, validate=False)
    with db.session() as s:
        s.get(BotVersion, first.id).tree_sha256 = None
    again = register_bot(db, store_runtime, zip_folder(folder, tmp_path / "a.zip"), validate=False)
    assert again.id == first.id
    with db.session(read_only=True) as s:
        assert s.get(BotVersion, first.id).tree_sha256 == tree_digest(pack_directory(folder))


def test_other_files_under_a_valid_version_are_still_refused(db, store_runtime, folder):
    register_bot(db, store_runtime, folder, validate=False)
    (folder / "notes.txt").write_text("new")
    with pytest.raises(Exception, match=r"mybot@1.0 already exists with different files \(valid\)"):
        register_bot(db, store_runtime, folder, validate=False)


def test_a_rejected_version_is_replaced_by_the_fixed_upload(db, runtime, tmp_path):
    broken = sample_copy(tmp_path / "fixme", "fixme", source=SAMPLE_BOTS / "random")
    (broken / "bot.py").write_text("import sys\nsys.exit(3)\n")  # dies at start-up
    rejected = register_bot(db, runtime, broken)
    assert rejected.status == "rejected" and "validation match" in rejected.reason
    shutil.copy(SAMPLE_BOTS / "random" / "bot.py", broken / "bot.py")  # the fix, same version
    fixed = register_bot(db, runtime, broken)
    assert (fixed.id, fixed.ref, fixed.status) == (rejected.id, "fixme@1.0", "valid")
    assert fixed.sha256 != rejected.sha256
    with db.session(read_only=True) as s:
        [history] = s.scalars(select(BotRejection)).all()
        assert (history.bot_version_id, history.sha256) == (rejected.id, rejected.sha256)
        assert history.reason == rejected.reason
        assert find_bot_version(s, "fixme@1.0").sha256 == fixed.sha256
    # the same fixed files again: the same version, nothing new in the history
    assert register_bot(db, runtime, broken).id == fixed.id
    with db.session(read_only=True) as s:
        assert len(s.scalars(select(BotRejection)).all()) == 1


# --------------------------------------------------------------------------- user paths


@pytest.mark.parametrize("kind", ["folder", "zip"])
def test_errors_name_the_users_file_not_the_platforms(store_runtime, db, tmp_path, kind):
    folder = sample_copy(tmp_path / "bad", "bad")
    (folder / "bot.toml").write_text('name = "bad"\ncommand = "python3 bot.py"\n')
    path = folder if kind == "folder" else zip_folder(folder, tmp_path / "upload.zip")
    with pytest.raises(PackageError) as err:
        register_bot(db, store_runtime, path, validate=False)
    message = str(err.value)
    shown = f"{folder}/bot.toml" if kind == "folder" else f"{path}: bot.toml"
    assert message.startswith(f"{shown}: command must be a list of strings"), message
    assert str(store_runtime.unpack_dir) not in message and "bot.zip" not in message


def test_a_zip_without_manifest_names_the_zip(store_runtime, db, tmp_path):
    path = tmp_path / "upload.zip"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("bot.py", "pass\n")
    with pytest.raises(PackageError, match=rf"^{path}: no bot.toml"):
        register_bot(db, store_runtime, path, validate=False)


# --------------------------------------------------------------------------- runtime


def test_runtimes_this_machine_has_are_accepted_and_others_refused():
    here = available_runtimes()
    own = f"python3.{__import__('sys').version_info.minor}"
    assert own in here
    for ok in ("", "python", "python3", own, "PYTHON3"):
        assert runtime_problem(ok) is None, ok
    problem = runtime_problem("python3.99")
    assert problem is not None and "not available here" in problem and own in problem
    assert "not one the platform knows" in (runtime_problem("ruby3") or "")
    if shutil.which("node"):
        node = next(r for r in here if r.startswith("node"))
        assert runtime_problem(node) is None and runtime_problem("node") is None
        assert runtime_problem(f"node{int(node[4:]) + 1}") is not None


def test_the_compiled_toolchains_are_runtimes_where_installed(monkeypatch):
    from arena import toolchains

    for name, version in toolchains.installed().items():
        if name not in ("python", "node"):
            assert runtime_problem(name) is None and name in available_runtimes()
            assert runtime_problem(name.upper()) is None, version
    assert "write one of python3.X, nodeN, c, cpp, go, java, rust" in (
        runtime_problem("c++17") or ""
    )
    monkeypatch.setattr("arena.bots.runtimes.installed", lambda: {"python": "3.11"})
    available_runtimes.cache_clear()
    try:
        problem = runtime_problem("go")
    finally:
        available_runtimes.cache_clear()
    assert problem is not None and problem.startswith("runtime 'go' is not installed here")


def test_a_bot_asking_for_a_missing_runtime_is_rejected_with_the_list(db, runtime, tmp_path):
    folder = sample_copy(tmp_path / "future", "future")
    with (folder / "bot.toml").open("a") as manifest:
        manifest.write('runtime = "python3.99"\n')
    version = register_bot(db, runtime, folder)
    assert version.status == "rejected"
    assert version.reason.startswith("bot.toml: runtime 'python3.99' is not available here")
    assert f"python3.{__import__('sys').version_info.minor}" in version.reason
    # fixed under the same version number: accepted
    (folder / "bot.toml").write_text(MANIFEST.format(name="future", version="1.0"))
    assert register_bot(db, runtime, folder).status == "valid"
