"""The Bhoos protocol's JSON: cards both ways, what a request holds (and must not hold),
answers back to moves, the rules such a bot can play, and the manifest field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.bots.package import PackageError, load_package, parse_manifest
from arena.bots.process_player import ProcessPlayer
from arena.game import BHOOS, CARDS, PAGAT, Deal, parse_card
from arena.players.bhoos.wire import PLAYER_IDS, card_in, card_out, move_from, plays_bhoos
from arena.players.bhoos.wire import request_body as body_of
from arena.players.player import BadReply, BotDied, MatchInfo, Request
from arena.sandbox import SandboxPolicy

GOOD = 'name = "b"\nversion = "1"\ncommand = ["node", "bot.js"]\n'


def mid_deal(scores=(0, 0, 0, 0)) -> Deal:
    """A bhoos deal two tricks and two cards in, all calls made."""
    deal = Deal(BHOOS, 5, dealer=2, index=3, scores=scores)
    for call in (3, 1, 4, 2):
        deal.call(deal.to_act, call)
    for _ in range(10):
        deal.play(deal.to_act, deal.legal_cards()[-1])
    return deal


def play_request(deal: Deal) -> Request:
    return Request(9, "play", 0, deal.observation(deal.to_act), 4000, 1234)


def test_cards_translate_both_ways_with_the_ace_written_1() -> None:
    assert card_out(parse_card("AS")) == "1S" and card_out(parse_card("TD")) == "TD"
    assert card_in("1H") == parse_card("AH") and card_in("2C") == parse_card("2C")
    assert [card_in(card_out(c)) for c in CARDS] == CARDS
    assert len({card_out(c) for c in CARDS}) == 52


@pytest.mark.parametrize("text", ["AS", "ZZ", "1X", "1s", "10S", "", None, 12, ["1S"]])
def test_anything_but_the_contest_spelling_is_malformed(text) -> None:
    with pytest.raises(BadReply):
        card_in(text)


def test_a_play_request_holds_the_deal_so_far_in_the_contest_format() -> None:
    deal = mid_deal(scores=(31, -20, 0, 105))
    request = play_request(deal)
    obs = request.observation
    body = body_of(request)
    assert body["playerId"] == f"P{obs.seat}" and body["playerIds"] == list(PLAYER_IDS)
    assert body["cards"] == [card_out(c) for c in obs.hand]
    assert body["timeBudget"] == 1234
    assert body["played"] == [card_out(c) for c in deal.trick]
    assert len(body["played"]) == 2
    assert body["history"] == [
        [t.leader, [card_out(c) for c in t.cards], t.winner] for t in deal.tricks
    ]
    assert len(body["history"]) == 2
    assert body["context"]["round"] == 4
    players = body["context"]["players"]
    assert [players[p]["totalPoints"] for p in PLAYER_IDS] == [3.1, -2, 0, 10.5]
    assert [players[p]["bid"] for p in PLAYER_IDS] == list(deal.calls)
    assert [players[p]["won"] for p in PLAYER_IDS] == list(deal.won)
    assert sum(deal.won) == 2


def test_a_bid_request_shows_bid_0_for_players_yet_to_call() -> None:
    deal = Deal(BHOOS, 5, dealer=0, index=0)
    deal.call(deal.to_act, 3)  # seat 1
    body = body_of(Request(1, "call", 0, deal.observation(2), 4000, 1000))
    assert [body["context"]["players"][p]["bid"] for p in PLAYER_IDS] == [0, 3, 0, 0]
    assert set(body) == {"playerId", "playerIds", "cards", "context"}
    assert body["context"]["round"] == 1


def test_a_request_shows_no_card_the_seat_may_not_know() -> None:
    deal = mid_deal()
    request = play_request(deal)
    seat = request.observation.seat
    text = json.dumps(body_of(request))
    public = {card_out(c) for t in deal.tricks for c in t.cards} | set(map(card_out, deal.trick))
    own = {card_out(c) for c in request.observation.hand}
    hidden = {card_out(c) for s in range(4) if s != seat for c in CARDS if deal.hands[s] >> c & 1}
    assert len(hidden) >= 3 * 13 - 10 and not hidden & public  # the others' unplayed cards
    assert not [card for card in hidden if f'"{card}"' in text]
    assert all(f'"{card}"' in text for card in own | public)


def test_answers_become_moves_and_anything_else_is_malformed() -> None:
    assert move_from("call", {"value": 3}) == 3
    assert move_from("play", {"value": "1S"}) == parse_card("AS")
    for kind, answer in [
        ("call", {"value": True}),
        ("call", {"value": 3.0}),
        ("call", {"value": "3"}),
        ("call", {"value": 10**40}),
        ("call", {"bid": 3}),
        ("call", [3]),
        ("play", {"value": 7}),
        ("play", {"card": "1S"}),
    ]:
        with pytest.raises(BadReply):
            move_from(kind, answer)


def test_only_the_bhoos_rules_with_any_number_of_deals_suit_such_a_bot() -> None:
    assert plays_bhoos(BHOOS) and plays_bhoos(BHOOS.with_(deals_per_game=2))
    assert not plays_bhoos(PAGAT)
    assert not plays_bhoos(BHOOS.with_(must_head="never"))
    assert not plays_bhoos(BHOOS.with_(max_call=13))


def test_the_manifest_names_the_protocol_grpc_by_default() -> None:
    assert parse_manifest(GOOD).get("protocol", "grpc") == "grpc"
    assert parse_manifest(GOOD + 'protocol = "bhoos-http"\n')["protocol"] == "bhoos-http"
    for bad in ('"http"', '"BHOOS-HTTP"', "3", '["grpc"]'):
        with pytest.raises(PackageError, match=r"unknown protocol .* grpc, bhoos-http"):
            parse_manifest(GOOD + f"protocol = {bad}\n")


def test_without_bwrap_a_bhoos_bot_is_refused_before_it_starts(tmp_path) -> None:
    """Unsandboxed, port 7000 would be the host's, shared by every seat."""
    package = load_package(Path(__file__).resolve().parents[2] / "sample_bots" / "bhoos_lowcard")
    assert package.protocol == "bhoos-http"
    player = ProcessPlayer(package, policy=SandboxPolicy(mode="rlimits"), log_dir=tmp_path)
    with pytest.raises(BotDied, match="needs the bwrap sandbox"):
        player.start(MatchInfo("m", BHOOS, 1000, 1000), 5.0)
    assert player.sandbox == "rlimits" and player._proc is None
    player.close()
