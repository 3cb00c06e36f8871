"""The validation match tells a bot nothing a tournament match would not: a bot that could
tell them apart could behave only where it is judged. A real bot package in the bwrap
sandbox reports everything it was told; its validation and a tournament match with the
default settings must read the same, game by game."""

from __future__ import annotations

import re
from pathlib import Path

from arena.bots.package import load_package
from arena.bots.process_player import ProcessPlayer
from arena.config import Settings
from arena.game import PAGAT
from arena.house.names import house_player
from arena.referee import Clock, MatchSpec, play_match, secret_seed
from arena.registry import validation_problem
from arena.runtime import Runtime
from tests.referee.conftest import HOSTILE_BOTS, POLICY, copy_bot_dir
from tests.support import need_sandbox

TOLD = re.compile(r"^TOLD (game=\d+ .*)$", re.M)


def test_the_validation_match_reads_as_a_tournament_match(tmp_path: Path) -> None:
    need_sandbox(POLICY)
    package = load_package(copy_bot_dir(HOSTILE_BOTS / "tells_validation", tmp_path / "bots"))
    runtime = Runtime(Settings(f"sqlite:///{tmp_path}/unused.db", tmp_path / "data"), policy=POLICY)
    logs = tmp_path / "validation"
    assert validation_problem(runtime, package, logs) is None
    validation = TOLD.findall("".join(p.read_text() for p in logs.glob("*.log")))

    # A tournament match as `arena tournament create` makes it by default: pagat, its deals,
    # the default clock, four games; the bot among house bots.
    player = ProcessPlayer(package, "entrant", policy=POLICY, log_dir=tmp_path / "tournament")
    houses = [house_player(kind, 1, f"house-{kind}") for kind in ("random", "heuristic", "random")]
    spec = MatchSpec("m", rules=PAGAT, seed=secret_seed(), games=4, clock=Clock())
    try:
        play_match(spec, [player, *houses])
    finally:
        player.close()
    tournament = TOLD.findall(player.log_path.read_text())
    assert len(tournament) == 4
    assert validation == tournament  # rules, deals and clock: nothing sets it apart
    assert validation[0].startswith(f"game=0 rules=pagat deals={PAGAT.deals_per_game} ")
