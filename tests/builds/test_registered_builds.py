"""A version's build at registration, through the real registry and sandbox: its built folder
becomes the artifact every match runs, a failed build rejects it with the reason and the log
its owner reads, and the same files again build nothing."""

from __future__ import annotations

from dataclasses import replace

from arena.registry import register_bot
from arena.registry.archives import runnable
from arena.runtime import Runtime
from arena.store import BotVersion
from tests.support import bot_built_from_source, bot_with_build


def test_the_built_folder_is_the_artifact_every_match_runs(db, runtime, tmp_path):
    version = register_bot(db, runtime, bot_built_from_source(tmp_path / "bot"))
    assert (version.status, version.reason) == ("valid", "")  # it played from the built tree
    with db.session(read_only=True) as s:
        row = s.get_one(BotVersion, version.id)
        assert row.artifact_sha256 not in (None, row.sha256)
        assert "generating" in (row.build_log or "")
        package = runnable(db, runtime, row)
    assert (package.root / "bot.py").exists() and (package.root / "source.py").exists()


def test_the_same_files_again_build_nothing(db, runtime, tmp_path):
    folder = bot_built_from_source(tmp_path / "bot")
    first = register_bot(db, runtime, folder)
    with db.session() as s:
        s.get_one(BotVersion, first.id).build_log = "the first build's log"
    again = register_bot(db, runtime, folder)
    assert again.id == first.id
    with db.session(read_only=True) as s:
        assert s.get_one(BotVersion, first.id).build_log == "the first build's log"


def test_a_failed_build_rejects_the_version_with_its_reason_and_log(db, runtime, tmp_path):
    script = "echo 'bot.cpp:3: error: expected ; before }' >&2; exit 2"
    version = register_bot(db, runtime, bot_with_build(tmp_path / "bot", script))
    assert version.status == "rejected"
    assert version.reason == "build: the build command exited with status 2"
    with db.session(read_only=True) as s:
        row = s.get_one(BotVersion, version.id)
        assert row.artifact_sha256 is None
        assert "expected ; before }" in (row.build_log or "")


def test_a_build_out_of_time_rejects_the_version_saying_so(db, runtime, tmp_path):
    quick = Runtime(replace(runtime.settings, build_seconds=2), policy=runtime.policy)
    version = register_bot(db, quick, bot_with_build(tmp_path / "bot", "sleep 300"))
    assert (version.status, version.reason) == (
        "rejected",
        "build: ran past its time limit (2 s)",
    )


def test_a_built_link_out_of_the_folder_is_not_stored(db, runtime, tmp_path):
    """The platform packs the built folder as root: a link the build planted to a host file
    must be refused, never followed."""
    script = "ln -s /etc/shadow leak"
    version = register_bot(db, runtime, bot_with_build(tmp_path / "bot", script))
    assert version.status == "rejected"
    assert version.reason.startswith("build: the built folder cannot be stored: ")
    assert "leak: a symbolic link" in version.reason
    with db.session(read_only=True) as s:
        assert s.get_one(BotVersion, version.id).artifact_sha256 is None
