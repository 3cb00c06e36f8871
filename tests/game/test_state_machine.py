"""Deal and Game as state machines: every illegal action raises IllegalAction with a clear
message and leaves the whole state (every field) exactly as it was."""

from __future__ import annotations

import copy
import random
import re
from collections.abc import Callable

import pytest

from arena.game import (
    BHOOS,
    CALLING,
    OVER,
    PAGAT,
    PLAYING,
    Deal,
    Game,
    IllegalAction,
    Ruleset,
    cards_of,
    parse_card,
)
from tests.game.helpers import (
    PRESET_IDS,
    PRESETS,
    call_all,
    deal_from,
    mask,
    play_game,
    play_randomly,
    snapshot,
    suit,
)

both = pytest.mark.parametrize("rules", PRESETS, ids=PRESET_IDS)


def refused(obj: Deal | Game, action: Callable[[], object], message: str) -> IllegalAction:
    """Assert that ``action`` raises IllegalAction matching ``message`` and changes nothing."""
    before = snapshot(obj)
    with pytest.raises(IllegalAction, match=message) as info:
        action()
    assert snapshot(obj) == before, "an illegal action changed the state"
    return info.value


# -- calling --------------------------------------------------------------------------------


@both
def test_calling_out_of_turn_is_refused(rules: Ruleset) -> None:
    deal = Deal(rules, seed=1, dealer=2)
    for seat in (0, 1, 2):
        refused(
            deal,
            lambda seat=seat: deal.call(seat, rules.min_call),
            f"seat {seat} acted out of turn: seat 3 is to act",
        )
    deal.call(3, rules.min_call)
    refused(deal, lambda: deal.call(3, rules.min_call), "seat 3 acted out of turn: seat 0")
    for bad_seat in (-1, 4, None, "0"):
        refused(deal, lambda s=bad_seat: deal.call(s, rules.min_call), "out of turn")


@both
@pytest.mark.parametrize("bad", [-1, 0, 14, 99, "3", 3.0, True, None, [3]])
def test_an_illegal_call_is_refused(rules: Ruleset, bad: object) -> None:
    deal = Deal(rules, seed=1)
    if isinstance(bad, int) and not isinstance(bad, bool) and bad in deal.legal_calls():
        pytest.skip("legal under this preset")
    err = refused(deal, lambda: deal.call(1, bad), re.escape(f"seat 1 cannot call {bad!r}: calls"))
    assert f"{rules.min_call}-{rules.max_call}" in str(err)


@both
def test_calls_outside_the_preset_range_are_refused(rules: Ruleset) -> None:
    deal = Deal(rules, seed=1)
    for bad in (rules.min_call - 1, rules.max_call + 1):
        refused(deal, lambda bad=bad: deal.call(1, bad), f"cannot call {bad}")


@both
def test_playing_during_calling_is_refused(rules: Ruleset) -> None:
    deal = Deal(rules, seed=1)
    card = cards_of(deal.hands[1])[0]
    refused(deal, lambda: deal.play(1, card), "seat 1 cannot play a card: .* calling phase")
    call_all(deal, [rules.min_call] * 3)
    refused(deal, lambda: deal.play(0, card), "calling phase")


@both
def test_calling_during_play_is_refused(rules: Ruleset) -> None:
    deal = Deal(rules, seed=1)
    call_all(deal)
    assert deal.phase == PLAYING
    refused(deal, lambda: deal.call(1, rules.min_call), "cannot call: .* playing phase")
    assert list(deal.legal_calls()) == []


# -- playing --------------------------------------------------------------------------------


@both
def test_playing_out_of_turn_is_refused(rules: Ruleset) -> None:
    deal = Deal(rules, seed=1)
    call_all(deal)
    for seat in (0, 2, 3):
        card = cards_of(deal.hands[seat])[0]
        refused(
            deal,
            lambda seat=seat, card=card: deal.play(seat, card),
            f"seat {seat} acted out of turn: seat 1 is to act",
        )


@both
def test_playing_a_card_not_held_is_refused(rules: Ruleset) -> None:
    hands = [suit("S"), suit("H"), suit("D"), suit("C")]
    deal = deal_from(rules, hands, dealer=0)
    call_all(deal)
    refused(deal, lambda: deal.play(1, parse_card("AS")), "seat 1 cannot play AS: not in its hand")
    deal.play(1, parse_card("AH"))
    refused(deal, lambda: deal.play(2, parse_card("AH")), "cannot play AH: not in its hand")
    refused(deal, lambda: deal.play(2, parse_card("KH")), "cannot play KH: not in its hand")


@both
def test_playing_a_held_but_illegal_card_is_refused_and_the_legal_cards_named(
    rules: Ruleset,
) -> None:
    hands = [
        "AS KS QS JS TS 9S 8S AD KD QD JD TD 9D",
        suit("H"),
        "7S 6S 5S 4S 3S 2S 8D 7D 6D 5D 4D 3D 2D",
        suit("C"),
    ]
    deal = deal_from(rules, hands, dealer=0)
    call_all(deal)
    deal.play(1, parse_card("KH"))
    err = refused(deal, lambda: deal.play(2, parse_card("8D")), "cannot play 8D: not legal here")
    assert "(legal: 2S 3S 4S 5S 6S 7S)" in str(err)


@both
@pytest.mark.parametrize("bad", [-1, 52, "AS", 1.0, True, None])
def test_playing_something_that_is_not_a_card_is_refused(rules: Ruleset, bad: object) -> None:
    deal = Deal(rules, seed=1)
    call_all(deal)
    refused(deal, lambda: deal.play(1, bad), f"seat 1 cannot play {bad!r}: not a card")


@both
def test_actions_after_the_end_of_a_deal_are_refused(rules: Ruleset) -> None:
    deal = Deal(rules, seed=3)
    play_randomly(deal, random.Random(3))
    assert deal.phase == OVER and deal.to_act is None
    for seat in range(4):
        refused(deal, lambda seat=seat: deal.call(seat, rules.min_call), "over phase")
        refused(deal, lambda seat=seat: deal.play(seat, 0), "over phase")
    assert deal.legal_cards() == [] and list(deal.legal_calls()) == []


@both
def test_points_before_the_end_of_the_deal_are_refused(rules: Ruleset) -> None:
    deal = Deal(rules, seed=3)
    refused(deal, deal.points, "the deal is not over yet")
    play_randomly(deal, random.Random(3), stop_after=51)
    refused(deal, deal.points, "the deal is not over yet")
    deal.play(deal.to_act, deal.legal_cards()[0])
    assert len(deal.points()) == 4


@both
def test_game_actions_after_the_end_of_the_game_are_refused(rules: Ruleset) -> None:
    game = play_game(Game(rules.with_(deals_per_game=2), seed=5), random.Random(5))
    assert game.over
    for seat in range(4):
        refused(game, lambda seat=seat: game.call(seat, rules.min_call), "the game is over")
        refused(game, lambda seat=seat: game.play(seat, 0), "the game is over")


@both
def test_illegal_game_actions_leave_the_whole_game_unchanged(rules: Ruleset) -> None:
    game = Game(rules, seed=6, first_dealer=1)
    rng = random.Random(6)
    play_randomly(game, rng)  # first deal over, the second deal is calling
    assert game.deal.phase == CALLING and len(game.finished) == 1
    refused(game, lambda: game.play(game.deal.to_act, 0), "calling phase")
    refused(game, lambda: game.call((game.deal.to_act + 1) % 4, rules.min_call), "out of turn")
    refused(game, lambda: game.call(game.deal.to_act, rules.max_call + 1), "cannot call")
    call_all(game)
    seat = game.deal.to_act
    not_held = next(c for c in range(52) if not game.deal.hands[seat] >> c & 1)
    refused(game, lambda: game.play(seat, not_held), "not in its hand")


# -- exhaustive: at every point of random deals, exactly the legal actions are accepted -------


def _fingerprint(deal: Deal) -> tuple:
    """A cheap stand-in for ``snapshot`` (every mutable field), for the exhaustive sweep."""
    return (
        deal.phase,
        deal.to_act,
        deal.leader,
        tuple(deal.hands),
        tuple(deal.calls),
        tuple(deal.tricks),
        tuple(deal.trick),
        deal.summary,
        tuple(deal.won),
    )


@both
def test_exactly_the_legal_actions_are_accepted_at_every_point(rules: Ruleset) -> None:
    """Every (seat, call) and (seat, card) pair at every point of a random deal: the legal
    ones are accepted, all others refused without any change."""
    rng = random.Random(rules.name)
    deal = Deal(rules, seed=12, dealer=2)
    while deal.phase != OVER:
        before = snapshot(deal)
        fingerprint = _fingerprint(deal)
        for seat in range(4):
            for n in range(-1, 15):
                if deal.phase == CALLING and seat == deal.to_act and n in deal.legal_calls():
                    continue
                with pytest.raises(IllegalAction, match=f"seat {seat}"):
                    deal.call(seat, n)
                assert _fingerprint(deal) == fingerprint, (seat, n)
            for card in range(52):
                if deal.phase == PLAYING and deal.legal_mask(seat) >> card & 1:
                    assert seat == deal.to_act and deal.hands[seat] >> card & 1
                    copy.deepcopy(deal).play(seat, card)  # accepted
                    continue
                with pytest.raises(IllegalAction, match=f"seat {seat}"):
                    deal.play(seat, card)
                assert _fingerprint(deal) == fingerprint, (seat, card)
        assert snapshot(deal) == before
        if deal.phase == CALLING:
            deal.call(deal.to_act, rng.choice(deal.legal_calls()))
        else:
            deal.play(deal.to_act, rng.choice(deal.legal_cards()))


# -- legal flow -----------------------------------------------------------------------------


@both
def test_a_deal_walks_calling_then_playing_then_over(rules: Ruleset) -> None:
    deal = Deal(rules, seed=9, dealer=3)
    assert deal.phase == CALLING and deal.to_act == 0
    assert deal.legal_cards(0) == []
    for k in range(4):
        assert deal.phase == CALLING
        deal.call(deal.to_act, rules.min_call + k % 2)
    assert deal.phase == PLAYING and deal.to_act == deal.leader == 0
    rng = random.Random(9)
    for trick in range(13):
        for k in range(4):
            result = deal.play(deal.to_act, rng.choice(deal.legal_cards()))
            assert (result is None) == (k < 3)
        assert len(deal.tricks) == trick + 1
    assert deal.phase == OVER and deal.to_act is None
    assert deal.hands == [0, 0, 0, 0] and sum(deal.won) == 13


def test_explicit_hands_must_split_the_pack_13_each() -> None:
    good = [suit("S"), suit("H"), suit("D"), suit("C")]
    with pytest.raises(ValueError, match="13 each"):
        Deal(PAGAT, seed=0, hands=[mask(h) for h in good[:3]] + [0])
    with pytest.raises(ValueError, match="13 each"):
        Deal(PAGAT, seed=0, hands=[mask(good[0])] * 4)
    short = [mask(h) for h in good]
    short[0] &= short[0] - 1
    short[1] |= 1  # 2S moves to seat 1: 12 and 14 cards
    with pytest.raises(ValueError, match="13 each"):
        Deal(PAGAT, seed=0, hands=short)
    with pytest.raises(ValueError, match="13 each"):
        Deal(PAGAT, seed=0, hands=[mask(h) for h in good[:3]] + [mask(good[3]) | 1 << 60])


@pytest.mark.parametrize("dealer", [-1, 4, 7])
def test_the_dealer_must_be_a_seat(dealer: int) -> None:
    with pytest.raises(ValueError, match="dealer"):
        Deal(PAGAT, seed=0, dealer=dealer)
    with pytest.raises(ValueError, match="dealer"):
        Game(BHOOS, seed=0, first_dealer=dealer)
