"""A decision exported from a match record is the request the seat received, byte for byte."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from arena.bots.factory import house_player
from arena.cli import main
from arena.game import PAGAT
from arena.players.wire import request_to_proto
from arena.readmodels.decision import DecisionNotFound, export_decision, load_decision
from arena.referee import Clock, MatchSpec, play_match
from tests.referee.conftest import POLICY, copy_bot_dir
from tests.support import need_sandbox
from tests.views.players import Delegating

# A bot that says what it does on stderr, then fails at its first decision: the SDK prints
# the traceback to its log and answers that it could not decide.
FAILS_AT_ONCE = """
import sys
from arena.sdk import Bot, serve

class FailsAtOnce(Bot):
    name = "fails-at-once"

    def call(self, obs):
        print(f"thinking about {len(obs.hand)} cards", file=sys.stderr, flush=True)
        return {}["no such key"]

    play = call

if __name__ == "__main__":
    serve(FailsAtOnce())
"""


class Recording(Delegating):
    """A house bot that remembers every request it was sent."""

    def __init__(self, inner) -> None:
        super().__init__(inner)
        self.requests = []

    def decide(self, request, timeout_s):
        self.requests.append(request)
        return self.inner.decide(request, timeout_s)


def _wire(request) -> bytes:
    args = (request.kind, request.observation, request.game)
    msg = request_to_proto(request.id, *args, request.time_left_ms, request.decision_ms)
    return msg.decision.SerializeToString(deterministic=True)


@pytest.fixture(scope="module")
def played():
    players = [Recording(house_player("heuristic", seed=i)) for i in range(4)]
    spec = MatchSpec("t1-m1", PAGAT.with_(deals_per_game=2), 5, 2, Clock(1000, 5000))
    result = play_match(spec, players)
    return result.record, players


def test_every_exported_decision_is_the_request_sent(played):
    record, players = played
    sent = {r.id: r for p in players for r in p.requests}
    for request in sent.values():
        exported = export_decision(record, request.game, request.id)
        loaded = load_decision(json.loads(json.dumps(exported)))
        assert _wire(loaded.request) == _wire(request)
        assert loaded.info.rules == PAGAT.with_(deals_per_game=2)


def test_unknown_decision_is_a_clear_error(played):
    record, _ = played
    with pytest.raises(DecisionNotFound, match="no decision 99999"):
        export_decision(record, 0, 99999)
    with pytest.raises(DecisionNotFound, match=r"no game 8 \(index 7\)"):
        export_decision(record, 7, 1)


def test_replay_decision_asks_a_bot_again(played, tmp_path):
    record, players = played
    request = players[0].requests[5]
    path = tmp_path / "decision.json"
    path.write_text(json.dumps(export_decision(record, request.game, request.id)))
    result = CliRunner().invoke(main, ["replay", "decision", str(path), "--bot", "heuristic"])
    assert result.exit_code == 0, result.output
    assert f"decision {request.id} ({request.kind}), house-heuristic answers:" in result.output


def test_replay_decision_refuses_other_files(tmp_path):
    path = tmp_path / "x.json"
    path.write_text('{"format": "callbreak-match"}')
    result = CliRunner().invoke(main, ["replay", "decision", str(path), "--bot", "heuristic"])
    assert result.exit_code == 1
    assert "not a callbreak-decision file" in result.output


def test_replay_decision_shows_what_the_bot_logged_at_the_decision(played, tmp_path):
    need_sandbox(POLICY)
    record, players = played
    request = players[0].requests[0]  # a call: the bot's first decision, as in the match
    path = tmp_path / "decision.json"
    path.write_text(json.dumps(export_decision(record, request.game, request.id)))
    source = tmp_path / "src" / "fails-at-once"
    source.mkdir(parents=True)
    (source / "bot.py").write_text(FAILS_AT_ONCE)
    manifest = 'name = "fails-at-once"\nversion = "1"\ncommand = ["python3", "bot.py"]\n'
    (source / "bot.toml").write_text(manifest)
    bot = copy_bot_dir(source, tmp_path / "bots")
    result = CliRunner().invoke(main, ["replay", "decision", str(path), "--bot", str(bot)])
    assert result.exit_code == 1, result.output
    assert "Error: fails-at-once failed: exception" in result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == f"its log at decision {request.id}:"
    assert lines[1] == "  [arena: start 1 of fails-at-once]"  # what came before the marker
    [marker] = [i for i, line in enumerate(lines) if line.startswith("  ── game 1 · deal 1 ·")]
    assert lines[marker].endswith(f" · decision {request.id} (call) ──")
    assert lines[marker + 1] == "  thinking about 13 cards"
    assert "  Traceback (most recent call last):" in lines
    assert lines[-1] == "  KeyError: 'no such key'"
