"""Bots of the stdio-json protocol in whole matches: real packages in the bwrap sandbox behind
their relay, the real referee. A well-behaved one plays without a fault; each misbehaviour
gets the fault a gRPC bot gets for the same, the match completes for the others, and no
process of the bot survives (``MatchRun.assert_completed_and_contained``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.players.stream import MAX_MESSAGE_BYTES
from arena.referee.moves import fallback
from tests.referee.conftest import GAMES, copy_bot_dir
from tests.referee.test_hostile_matches import own_decisions, replay_to
from tests.support import HOSTILE_BOTS

pytestmark = pytest.mark.slow


def misbehaving(tmp_path: Path, mode: str) -> Path:
    """A copy of the stdio bot whose manifest starts it in ``mode`` (its bot.py says them)."""
    bot = copy_bot_dir(HOSTILE_BOTS / "stdio_misbehaves", tmp_path / mode)
    manifest = bot / "bot.toml"
    manifest.write_text(manifest.read_text().replace('"plays-well"', f'"{mode}"'))
    return bot


def test_a_stdio_bot_plays_a_whole_match_with_its_own_moves(run_match, tmp_path) -> None:
    run = run_match(misbehaving(tmp_path, "plays-well"))
    run.assert_completed_and_contained()
    assert run.faults() == []
    decisions = own_decisions(run)
    assert len(decisions) == GAMES * 2 * 14  # every call and card of its two deals a game
    for _, _, entry in decisions:
        obs, kind, played = replay_to(run.result.record, entry["id"])
        assert played == (str(obs.legal_cards[0]) if kind == "play" else obs.legal_calls[0])


def test_lines_that_are_no_bot_message_are_malformed(run_match, tmp_path) -> None:
    run = run_match(misbehaving(tmp_path, "bad-lines"))
    run.assert_completed_and_contained()
    assert run.kinds() == ["malformed"] * 3 + ["forfeit"]
    reasons = [f.reason for f in run.faults()[:3]]
    assert reasons[0].startswith("a line on stdout is not JSON")
    assert reasons[1] == "a line on stdout is not a JSON object"
    assert reasons[2].startswith("a line on stdout is not a BotMessage")
    for fault in run.faults()[:3]:
        obs, kind, played = replay_to(run.result.record, fault.decision)
        assert kind == "play" and played == str(fallback("play", obs))


def test_a_line_past_the_limit_is_oversized(run_match, tmp_path) -> None:
    run = run_match(misbehaving(tmp_path, "huge-line"))
    run.assert_completed_and_contained()
    assert run.kinds()[0] == "oversized"
    assert str(MAX_MESSAGE_BYTES) in run.faults()[0].reason


def test_a_bot_that_closes_its_stdout_is_a_crash(run_match, tmp_path) -> None:
    run = run_match(misbehaving(tmp_path, "closes-stdout"))
    run.assert_completed_and_contained()
    first = run.faults()[0]
    assert first.kind == "crash", run.faults()
    assert "closed its stdout" in first.reason
