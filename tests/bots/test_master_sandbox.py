"""The master as contestants' bots run: its package passes the validation match in the bwrap
sandbox, and it starts from the prebuilt search cache there without compiling anything."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.bots.package import load_package
from arena.bots.process_player import ProcessPlayer
from arena.config import Settings
from arena.game import PAGAT
from arena.house.master.cache import warm
from arena.players.player import MatchInfo
from arena.registry import validation_problem
from arena.runtime import Runtime
from arena.sandbox import SandboxPolicy
from tests.support import need_sandbox

MASTER = Path(__file__).resolve().parents[2] / "sample_bots" / "master"
POLICY = SandboxPolicy(mode="bwrap", stop_grace_seconds=0.5)


@pytest.fixture(scope="module")
def package():
    need_sandbox(POLICY)
    warm()  # what `arena setup` does: build the cache outside the sandbox
    return load_package(MASTER)


def test_master_package_passes_the_validation_match_in_the_sandbox(package, tmp_path):
    runtime = Runtime(Settings(f"sqlite:///{tmp_path}/unused.db", tmp_path / "data"), policy=POLICY)
    assert validation_problem(runtime, package) is None


def test_master_starts_from_the_prebuilt_cache_without_compiling(package, tmp_path):
    player = ProcessPlayer(package, "master", policy=POLICY, log_dir=tmp_path)
    try:
        player.start(MatchInfo("startup", PAGAT, 1000, 10_000), timeout_s=15)
        assert player.sandbox == "bwrap"
    finally:
        player.close()
    log = (tmp_path / "master.log").read_text()
    assert "master: search ready" in log, log
    assert "cache copied to /tmp/numba-cache" in log, log  # the source is read-only in there
    assert "0 compiled" in log, log
