"""The master as contestants' bots run: its package passes the validation match in the bwrap
sandbox, and it starts from the prebuilt search cache there without compiling anything."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.bots.package import load_package
from arena.bots.process_player import ProcessPlayer
from arena.cli import main
from arena.config import Settings
from arena.game import PAGAT
from arena.house.master.cache import ensure_built, is_built, used_by, warm
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


def test_the_built_cache_is_recognised_and_who_needs_it(package):
    """What a worker's start, a validation and `arena play` ask before a master-based bot
    starts (master seats forfeited on a cold cache)."""
    assert is_built()  # the fixture built it, as `arena setup` does
    assert used_by(MASTER)
    assert not used_by(MASTER.parent / "random")
    assert ensure_built() is None  # nothing to build again


def test_arena_play_says_what_to_run_when_the_search_is_not_built(package, monkeypatch):
    monkeypatch.setattr("arena.house.master.cache.is_built", lambda: False)
    monkeypatch.setenv("ARENA_SANDBOX_MODE", "bwrap")
    result = CliRunner().invoke(main, ["play", str(MASTER), "random", "random", "random"])
    assert result.exit_code == 1, result.output
    assert "runs the master's search, which is not compiled" in result.output
    assert "run `arena setup` first" in result.output
    assert len(result.output.strip().splitlines()) == 1
