"""Registering Bhoos HTTP bots: validated by a real match of four sandboxed copies under
the bhoos rules (the only rules the protocol's bots know), rejected with the fault; and
entered only into tournaments under those rules."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from arena.bots.process_player import ProcessPlayer
from arena.game import BHOOS, PAGAT
from arena.registry import player_for, register_bot
from arena.store import StoreError, Tournament
from arena.tournaments.create import new_tournament
from arena.tournaments.spec import TournamentSpec
from tests.services.conftest import SAMPLE_BOTS, counts, valid_bot
from tests.support import need

HOSTILE_BOTS = Path(__file__).resolve().parents[1] / "hostile_bots"


def test_a_bhoos_bot_is_validated_and_runs_behind_its_protocol(db, runtime, tmp_path):
    need(shutil.which("node") is not None, "node is not installed (the sample is a Node bot)")
    version = register_bot(db, runtime, SAMPLE_BOTS / "bhoos_lowcard")
    assert (version.ref, version.status, version.reason) == ("bhoos-lowcard@1.0.0", "valid", "")
    assert version.manifest["protocol"] == "bhoos-http"
    player = player_for(db, runtime, version, 0, tmp_path)
    assert isinstance(player, ProcessPlayer) and player.package.protocol == "bhoos-http"


def test_a_faulty_bhoos_bot_is_rejected_under_the_bhoos_rules(db, runtime):
    version = register_bot(db, runtime, HOSTILE_BOTS / "bhoos_illegal_moves")
    assert version.status == "rejected"
    # 1-8 is the bhoos call range: the validation match was played under those rules.
    assert version.reason == "validation match: illegal_call: call 9 outside 1-8"


def test_a_tournament_takes_a_bhoos_bot_only_under_the_bhoos_rules(db, store_runtime):
    valid_bot(db, store_runtime, SAMPLE_BOTS / "bhoos_lowcard")
    valid_bot(db, store_runtime, SAMPLE_BOTS / "random")
    with pytest.raises(StoreError, match=r"bhoos-lowcard is a Bhoos HTTP bot: .* not pagat"):
        new_tournament(db, store_runtime, TournamentSpec(["bhoos-lowcard", "random"], PAGAT))
    assert counts(db, (Tournament,)) == {"tournaments": 0}
    created = new_tournament(db, store_runtime, TournamentSpec(["bhoos-lowcard", "random"], BHOOS))
    assert created.ruleset["name"] == "bhoos"
