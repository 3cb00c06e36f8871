"""Bots of the Bhoos "Smart Bots" HTTP protocol in whole matches: real packages, each in its
own bwrap sandbox listening on the same fixed port 7000 behind the relay, the real referee.

Four copies of the Node sample at one table, mixed tables with gRPC process bots, and one
hostile bot package per fault (tests/hostile_bots/bhoos_*) against three house bots: every
fault is the one a gRPC bot gets for the same misbehaviour, the match completes for the
others, and no process of the bot survives (``MatchRun.assert_completed_and_contained``).
"""

from __future__ import annotations

import json
import shutil
import socket
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from arena.bots.package import load_package
from arena.bots.process_player import ProcessPlayer
from arena.game import Deal, Observation, Ruleset, parse_card, validate_record
from arena.game.cards import RANKS
from arena.players.bhoos.client import MAX_BODY_BYTES, MAX_HEAD_BYTES
from arena.referee import MatchResult, MatchSpec, play_match
from arena.referee.moves import fallback
from arena.sandbox import SandboxPolicy
from tests.referee.conftest import (
    BHOOS_RULES,
    FAST_CLOCK,
    GAMES,
    RULES,
    copy_bot_dir,
    live_pids,
    sandbox_leftovers,
)
from tests.referee.test_hostile_matches import (
    assert_timeouts_waited_their_allowance,
    own_decisions,
    replay_to,
)
from tests.support import SAMPLE_BOTS, need

pytestmark = pytest.mark.slow

BHOOS_SAMPLE = SAMPLE_BOTS / "bhoos_lowcard"
DECISIONS = GAMES * 2 * 14  # one entrant's decisions in a match of 4 games of 2 deals
KING = RANKS.index("K")


def replayed(record: dict) -> Iterator[tuple[dict, Observation, str, str | int]]:
    """(game, the acting seat's observation, kind, the move the record says) for every
    decision of the match, in order."""
    rules = Ruleset.from_dict(record["rules"])
    for game in record["games"]:
        for rec in game["deals"]:
            deal = Deal(rules, rec["seed"], rec["dealer"], rec["index"])
            for _ in range(4):
                seat = deal.to_act
                yield game, deal.observation(seat), "call", rec["calls"][seat]
                deal.call(seat, rec["calls"][seat])
            for trick in rec["tricks"]:
                for card in trick["cards"]:
                    seat = deal.to_act
                    yield game, deal.observation(seat), "play", card
                    deal.play(seat, parse_card(card))


def lowcard_move(obs: Observation, kind: str) -> str | int:
    """What the Node sample must answer: its call counts kings, aces and spades past four;
    its card is the lowest legal one, a non-spade on equal rank (the referee's fallback)."""
    if kind == "play":
        return str(fallback("play", obs))
    sure = sum(card.rank >= KING for card in obs.hand)
    spades = sum(card.suit == 0 for card in obs.hand)
    return max(1, min(8, sure + max(0, spades - 4)))


@pytest.fixture
def table(
    tmp_path: Path, sandbox_policy: SandboxPolicy
) -> Iterator[Callable[[list[Path]], tuple[MatchResult, list[ProcessPlayer], list[str]]]]:
    """Play a bhoos match between four process bots (package folders, copied); returns the
    result, the players and the processes left behind."""
    need(shutil.which("node") is not None, "node is not installed (the sample is a Node bot)")
    players: list[ProcessPlayer] = []

    def play(bots: list[Path]) -> tuple[MatchResult, list[ProcessPlayer], list[str]]:
        copies = [copy_bot_dir(bot, tmp_path / f"seat{i}") for i, bot in enumerate(bots)]
        packages = [load_package(copy) for copy in copies]
        players[:] = [
            ProcessPlayer(p, f"{p.name}#{i}", policy=sandbox_policy, log_dir=tmp_path / "logs")
            for i, p in enumerate(packages)
        ]
        spec = MatchSpec("bhoos-table", rules=BHOOS_RULES, seed=11, games=GAMES, clock=FAST_CLOCK)
        before = live_pids()
        result = play_match(spec, players)
        leftovers = [p for c in copies for p in sandbox_leftovers(c, before)]
        return result, players, leftovers

    yield play
    for player in players:
        player.close()


def assert_lowcard_played(result: MatchResult, entrants: set[int]) -> int:
    """Every decision of ``entrants`` is the sample's own choice (so the cards, calls and
    deal state went through the translation both ways intact); returns how many."""
    checked = 0
    for game, obs, kind, move in replayed(result.record):
        if game["seats"][obs.seat] in entrants:
            assert move == lowcard_move(obs, kind), (kind, obs.hand, move)
            checked += 1
    return checked


# --------------------------------------------------------------------------- full tables


def test_four_bhoos_bots_on_the_same_port_play_a_full_match(table) -> None:
    result, players, leftovers = table([BHOOS_SAMPLE] * 4)
    assert result.faults == []
    assert result.sandbox == ["bwrap"] * 4
    assert validate_record(result.record) is None
    assert len(result.games) == GAMES and all(g.deals == 2 for g in result.games)
    assert assert_lowcard_played(result, {0, 1, 2, 3}) == 4 * DECISIONS
    assert any(call != 1 for _, _, kind, call in replayed(result.record) if kind == "call")
    for player in players:
        log = player.log_path.read_text()
        # A fresh process for every game, each on port 7000, and every request in order.
        assert log.count("bhoos-lowcard listening on 7000") == GAMES
        assert "out of order" not in log
    assert leftovers == []


def test_bhoos_and_grpc_bots_play_at_one_table(table) -> None:
    bots = [BHOOS_SAMPLE, SAMPLE_BOTS / "random", BHOOS_SAMPLE, SAMPLE_BOTS / "heuristic"]
    result, players, leftovers = table(bots)
    assert result.faults == []
    assert result.sandbox == ["bwrap"] * 4
    assert validate_record(result.record) is None
    assert assert_lowcard_played(result, {0, 2}) == 2 * DECISIONS
    assert [p.package.protocol for p in players] == ["bhoos-http", "grpc"] * 2
    assert leftovers == []


def test_a_bhoos_bot_in_a_pagat_match_fails_to_start_with_the_reason(run_match) -> None:
    need(shutil.which("node") is not None, "node is not installed (the sample is a Node bot)")
    run = run_match(BHOOS_SAMPLE, rules=RULES)
    run.assert_completed_and_contained()
    assert run.kinds() == ["start_failed", "forfeit"]
    assert "a bhoos-http bot plays the bhoos rules only (this match: pagat)" in (
        run.faults()[0].reason
    )
    assert own_decisions(run) == []


# --------------------------------------------------------------------------- bad answers


def test_bodies_that_are_not_json_are_malformed(run_match) -> None:
    run = run_match("bhoos_bad_json", rules=BHOOS_RULES)
    run.assert_completed_and_contained()
    assert run.kinds() == ["malformed"] * 3 + ["forfeit"]
    reasons = [f.reason for f in run.faults()[:3]]
    assert reasons[0] == """POST /play: the answer is not JSON: '{"value": "2S"'"""
    assert reasons[1] == "POST /play: the answer is not JSON: 'not json at all'"
    assert reasons[2] == "POST /play: the answer is not JSON: '" + "{" * 40 + "'"
    for fault in run.faults()[:3]:
        obs, kind, played = replay_to(run.result.record, fault.decision)
        assert kind == "play" and played == str(fallback("play", obs))


def test_cards_in_an_unknown_spelling_are_malformed(run_match) -> None:
    run = run_match("bhoos_unknown_card", rules=BHOOS_RULES)
    run.assert_completed_and_contained()
    assert run.kinds() == ["malformed"] * 3 + ["forfeit"]
    reasons = [f.reason for f in run.faults()[:3]]
    assert reasons[0].startswith("unknown card 'AS' (ranks 2-9 T J Q K 1")
    assert reasons[1].startswith("unknown card 'ZZ'")
    assert reasons[2].startswith("not a card: 12345")


def test_an_illegal_call_and_cards_not_held_are_struck_with_the_fallback(run_match) -> None:
    run = run_match("bhoos_illegal_moves", rules=BHOOS_RULES)
    run.assert_completed_and_contained()
    assert run.kinds() == ["illegal_call", "illegal_card", "illegal_card", "forfeit"]
    call, *cards = run.faults()[:3]
    assert call.reason == "call 9 outside 1-8"
    obs, kind, played = replay_to(run.result.record, call.decision)
    assert kind == "call" and played == 1
    for fault in cards:
        obs, kind, played = replay_to(run.result.record, fault.decision)
        claimed = parse_card(fault.reason[:2])  # translated: the bot wrote the ace as 1
        assert claimed not in obs.hand and kind == "play"
        assert played == str(fallback("play", obs))


# --------------------------------------------------------------------------- time, size


def test_an_answer_dripped_a_byte_at_a_time_times_out(run_match) -> None:
    run = run_match("bhoos_slow", rules=BHOOS_RULES)
    run.assert_completed_and_contained()
    assert run.kinds() == ["timeout"] * 3 + ["forfeit"]
    for fault in run.faults()[:3]:
        assert fault.reason.startswith("no answer to POST /play in time (waited ")
    assert_timeouts_waited_their_allowance(run)
    assert "the platform hung up on my drip" in run.log


def test_a_late_answer_is_one_timeout_and_the_bot_plays_on(run_match) -> None:
    """Late once per game (each game is a fresh process): four timeouts, under a strike limit
    of 5 no forfeit, and every other request answered in time on its own connection."""
    run = run_match("bhoos_answers_late", rules=BHOOS_RULES, max_strikes=5)
    run.assert_completed_and_contained()
    assert run.kinds() == ["timeout"] * GAMES and not run.result.forfeited[0]
    assert run.log.count("answering late") == GAMES
    asked = own_decisions(run)
    assert len(asked) == DECISIONS
    late = [f.decision for f in run.faults()]
    assert [e["id"] for _, _, e in asked if e.get("fault")] == late
    assert sorted({g for g, _, e in asked if e.get("fault")}) == list(range(GAMES))
    for decision in late:
        obs, kind, played = replay_to(run.result.record, decision)
        assert kind == "play" and played == str(fallback("play", obs))


def test_an_endless_body_is_oversized_and_forfeits(run_match) -> None:
    run = run_match("bhoos_huge_body", rules=BHOOS_RULES)
    run.assert_completed_and_contained()
    assert run.kinds() == ["oversized", "forfeit"]
    assert f"POST /play: answer over the {MAX_BODY_BYTES} byte limit" in run.faults()[0].reason
    assert "the platform hung up after" in run.log


def test_endless_headers_are_oversized_and_forfeit(run_match) -> None:
    run = run_match("bhoos_endless_headers", rules=BHOOS_RULES)
    run.assert_completed_and_contained()
    assert run.kinds() == ["oversized", "forfeit"]
    assert f"response head over {MAX_HEAD_BYTES} bytes" in run.faults()[0].reason


def test_a_redirect_is_a_bad_status_and_is_never_followed(run_match, copy_bot) -> None:
    with socket.socket() as trap:
        trap.bind(("127.0.0.1", 0))
        trap.listen()
        trap.setblocking(False)
        bot = copy_bot("bhoos_redirect")
        (bot / "target.txt").write_text(str(trap.getsockname()[1]))
        (bot / "target.txt").chmod(0o644)
        run = run_match(bot, rules=BHOOS_RULES)
        with pytest.raises(BlockingIOError):
            trap.accept()  # nobody connected to where the bot pointed
    run.assert_completed_and_contained()
    assert run.kinds() == ["malformed"] * 3 + ["forfeit"]
    for fault in run.faults()[:3]:
        assert fault.reason == "POST /play: HTTP status 307 (expected 200)"


# --------------------------------------------------------------------------- crashes


def test_a_crash_mid_game_is_a_crash_with_its_exit_status(run_match) -> None:
    run = run_match("bhoos_crash", rules=BHOOS_RULES)
    run.assert_completed_and_contained()
    assert run.kinds() == ["crash", "forfeit"]
    crash, forfeit = run.faults()
    asked = own_decisions(run)
    assert len(asked) == 5 and asked[4][2]["id"] == crash.decision == forfeit.decision
    assert "exit status 3" in crash.reason
    assert "crashing on decision 5" in crash.reason
    assert run.auto_decisions() == DECISIONS - 5


def test_a_bot_that_kills_its_relay_only_ends_itself(run_match) -> None:
    run = run_match("bhoos_kills_relay", rules=BHOOS_RULES)
    run.assert_completed_and_contained()
    assert run.kinds() == ["crash", "forfeit"]
    crash = run.faults()[0]
    assert len(own_decisions(run)) == 3 and own_decisions(run)[2][2]["id"] == crash.decision
    assert "killing the relay" in run.log
    assert "exit status 137" in crash.reason  # the relay's SIGKILL ended the sandbox


def test_a_bot_that_puts_its_own_server_in_place_of_the_relay_is_not_heard(run_match) -> None:
    run = run_match("bhoos_replaces_relay", rules=BHOOS_RULES)
    run.assert_completed_and_contained()
    assert run.kinds() == []  # its real answers, through the relay, all arrived
    assert run.log.count("replaced the relay's socket") == GAMES
    assert "the impostor got a connection" not in run.log
    assert len(own_decisions(run)) == DECISIONS


def test_fault_reasons_stay_short_in_the_record(run_match) -> None:
    run = run_match("bhoos_bad_json", rules=BHOOS_RULES)
    assert all(len(f.reason) <= 200 for f in run.faults())
    assert len(json.dumps(run.result.record["faults"])) < 2000
