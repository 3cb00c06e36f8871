"""Every starter kit as a contestant gets it: registered as it is, built by the platform's
build step in the sandbox, stored as its artifact and played from it in its validation game
among house bots (the real referee). A kit whose toolchain is not installed is skipped
locally and fails under CI=true."""

from __future__ import annotations

import subprocess

import pytest

from arena.bots.package import load_package
from arena.registry import register_bot
from arena.registry.archives import runnable
from arena.store import BotVersion
from arena.toolchains import installed_version, toolchain_named
from tests.support import ROOT, need

pytestmark = pytest.mark.slow

STARTERS = ROOT / "starters"
PROTO = ROOT / "protos" / "callbreak" / "v1" / "bot.proto"
KITS = sorted(path.name for path in STARTERS.iterdir() if (path / "bot.toml").exists())


def test_every_language_of_the_table_but_the_platforms_own_has_a_kit():
    assert KITS == ["c", "cpp", "go", "java", "rust"]


@pytest.mark.parametrize("kit", KITS)
def test_each_kits_copy_of_the_protocol_is_the_platforms(kit):
    """A bot sees only its own folder, so each kit carries bot.proto: the same messages and
    fields (a kit may add its language's options, and comments)."""
    assert _definitions(STARTERS / kit / "bot.proto") == _definitions(PROTO)


def _definitions(proto) -> list[str]:
    lines = [line.split("//")[0].strip() for line in proto.read_text().splitlines()]
    return [line for line in lines if line and not line.startswith("option ")]


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


def test_a_prebuilt_static_binary_plays_with_no_runtime_and_no_build(db, runtime, tmp_path):
    """What docs/languages.md promises a contestant with their own compiler: a static binary
    and a manifest of three lines, no ``runtime``, no ``build``."""
    need(installed_version("c") is not None, "gcc is not installed here")
    bot = tmp_path / "prebuilt"
    bot.mkdir()
    compiled = subprocess.run(
        ["gcc", "-O2", "-std=c99", "-static", "-o", bot / "mybot", STARTERS / "c" / "bot.c"],
        capture_output=True,
        text=True,
    )
    need(compiled.returncode == 0, f"no static libc here: {compiled.stderr[-300:]}")
    (bot / "bot.toml").write_text(
        'name = "prebuilt"\nversion = "1"\ncommand = ["./mybot"]\nprotocol = "stdio-json"\n'
    )
    version = register_bot(db, runtime, bot)
    assert (version.status, version.reason) == ("valid", ""), version.reason
    with db.session(read_only=True) as s:
        row = s.get_one(BotVersion, version.id)
        assert row.artifact_sha256 is None and row.build_log is None  # nothing was built
