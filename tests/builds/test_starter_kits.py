"""Every starter kit as a contestant gets it: registered as it is, built by the platform's
build step in the sandbox, stored as its artifact and played from it in its validation game
among house bots (the real referee). A kit whose toolchain is not installed is skipped
locally and fails under CI=true."""

from __future__ import annotations

import pytest

from arena.bots.package import load_package
from arena.registry import register_bot
from arena.registry.archives import runnable
from arena.store import BotVersion
from arena.toolchains import installed_version, toolchain_named
from tests.support import ROOT, need

pytestmark = pytest.mark.slow

STARTERS = ROOT / "starters"
KITS = sorted(path.name for path in STARTERS.iterdir() if (path / "bot.toml").exists())


def test_every_language_of_the_table_but_the_platforms_own_has_a_kit():
    assert KITS == ["c", "cpp", "go", "java", "rust"]


@pytest.mark.parametrize("kit", KITS)
def test_a_starter_kit_builds_and_plays_as_uploaded(db, runtime, kit):
    package = load_package(STARTERS / kit)
    chain = toolchain_named(package.runtime)
    assert chain is not None and chain.name == package.runtime == kit
    need(installed_version(kit) is not None, f"the {kit} toolchain is not installed here")
    assert package.build, "a kit shows the build step"
    version = register_bot(db, runtime, STARTERS / kit)
    assert (version.status, version.reason) == ("valid", ""), version.reason
    with db.session(read_only=True) as s:
        row = s.get_one(BotVersion, version.id)
        assert row.artifact_sha256 is not None and row.build_log is not None
        built = runnable(db, runtime, row)
    program = built.root / package.command[0] if package.command[0].startswith("./") else None
    assert program is None or program.is_file(), f"{program} was not built"
    assert not (STARTERS / kit / "target").exists() and not (STARTERS / kit / "bot.jar").exists()
