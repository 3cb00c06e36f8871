"""One scenario per sentence of the bhoos preset (rules.md, "Differences from pagat").

The sentences bhoos shares with pagat (cards, deal, calling order, trumping, trick winner)
run under both presets in ``test_rules_pagat.py``.
"""

from __future__ import annotations

import random
from decimal import Decimal

import pytest

from arena.game import (
    BHOOS,
    PAGAT,
    Deal,
    Game,
    IllegalAction,
    parse_card,
    score_deal,
    score_tenths,
)
from arena.game.record import game_record
from tests.game.helpers import call_all, deal_from, legal, play_game, play_randomly, suit


def test_bhoos_calls_from_1_to_8() -> None:
    """'Calls from 1 to 8.'"""
    assert (BHOOS.min_call, BHOOS.max_call) == (1, 8)
    assert list(Deal(BHOOS, seed=0).legal_calls()) == list(range(1, 9))
    deal = Deal(BHOOS, seed=0)
    for n in (1, 8, 1, 8):
        deal.call(deal.to_act, n)
    assert sorted(deal.calls) == [1, 1, 8, 8]
    for bad in (0, 9, 13):
        deal = Deal(BHOOS, seed=0)
        with pytest.raises(IllegalAction, match=f"cannot call {bad}: calls range 1-8"):
            deal.call(deal.to_act, bad)


def test_bhoos_following_suit_must_head_the_trick_if_able() -> None:
    """'A player following suit must head the trick if able (play a card of the led suit
    higher than the highest card of that suit already played)'"""
    assert legal(BHOOS, "2H TH AH 3D AS", "5H") == {"TH", "AH"}
    # higher than the highest of the led suit so far, not than the card led
    assert legal(BHOOS, "7H TH 2H", "5H 9H") == {"TH"}
    assert legal(BHOOS, "7H TH 2H", "5H 9H 6H") == {"TH"}
    # an off-suit card, however high, does not raise the bar
    assert legal(BHOOS, "7H 2H", "5H AD") == {"7H"}
    assert legal(BHOOS, "7H 2H", "5H AD KC") == {"7H"}


def test_bhoos_following_suit_unable_to_head_may_play_any_card_of_the_suit() -> None:
    """'must head the trick *if able*': with no higher card of the led suit, any card of
    the led suit (but still only the led suit)."""
    assert legal(BHOOS, "2H 3H AD AS", "5H 9H") == {"2H", "3H"}
    assert legal(BHOOS, "2H 3H AD AS", "AH") == {"2H", "3H"}


def test_bhoos_need_not_head_once_the_trick_has_been_trumped() -> None:
    """'..., unless the trick has already been trumped with a spade.'"""
    assert legal(BHOOS, "2H TH AS", "5H 3S") == {"2H", "TH"}
    assert legal(BHOOS, "2H TH AS", "5H 3S 9H") == {"2H", "TH"}
    assert legal(BHOOS, "2H TH AS", "5H 9H 3S") == {"2H", "TH"}
    # before the trump the same hand had to head
    assert legal(BHOOS, "2H TH AS", "5H 9H") == {"TH"}


def test_bhoos_must_head_when_spades_are_led() -> None:
    """A spade lead is not 'trumped': the heading rule applies to spades like any suit."""
    assert legal(BHOOS, "2S 9S AH", "5S") == {"9S"}
    assert legal(BHOOS, "2S QS AS AH", "5S KS") == {"AS"}
    assert legal(BHOOS, "2S QS AH", "KS") == {"2S", "QS"}
    assert legal(BHOOS, "2S QS AH", "KS 3H AS") == {"2S", "QS"}


def test_bhoos_heading_rule_through_the_state_machine() -> None:
    """'A player following suit must head the trick if able': a bhoos deal refuses a low
    spade that the same deal under pagat accepts."""
    hands = [
        "AS QS TS 8S 6S 4S 2S AH QH TH 8H 6H 4H",
        "KS JS 9S 7S 5S 3S KH JH 9H 7H 5H 3H 2H",
        suit("D"),
        suit("C"),
    ]
    deal = deal_from(BHOOS, hands, dealer=3)  # seat 0 leads
    call_all(deal)
    deal.play(0, parse_card("6S"))
    assert {str(c) for c in deal.legal_cards()} == {"7S", "9S", "JS", "KS"}
    with pytest.raises(IllegalAction, match="cannot play 3S: not legal here"):
        deal.play(1, parse_card("3S"))
    pagat = deal_from(PAGAT, hands, dealer=3)
    call_all(pagat)
    pagat.play(0, parse_card("6S"))
    pagat.play(1, parse_card("3S"))
    deal.play(1, parse_card("7S"))
    deal.play(2, parse_card("2D"))
    assert deal.play(3, parse_card("AC")) == 1


def test_bhoos_success_is_winning_at_least_the_call_plus_a_tenth_per_extra_trick() -> None:
    """'Success is winning at least the call: score = call + 0.1 × (tricks won − call).'"""
    assert score_deal(4, 5, BHOOS) == Decimal("4.1")
    assert float(score_deal(4, 5, BHOOS)) == 4.1
    assert score_deal(4, 4, BHOOS) == 4
    assert score_deal(4, 13, BHOOS) == Decimal("4.9")
    assert score_deal(1, 13, BHOOS) == Decimal("2.2")
    assert score_deal(8, 8, BHOOS) == 8  # no pagat bonus
    assert score_deal(8, 13, BHOOS) == Decimal("8.5")
    for call in range(1, 9):
        for won in range(call, 14):
            assert score_tenths(call, won, BHOOS) == 10 * call + (won - call)


def test_bhoos_failure_is_minus_the_call() -> None:
    """'Failure: −call.'"""
    assert score_deal(4, 3, BHOOS) == -4
    assert score_deal(4, 0, BHOOS) == -4
    assert score_deal(1, 0, BHOOS) == -1
    assert score_deal(8, 7, BHOOS) == -8
    for call in range(1, 9):
        for won in range(call):
            assert score_tenths(call, won, BHOOS) == -10 * call


def test_bhoos_scores_are_integer_tenths_so_no_float_rounding_creeps_in() -> None:
    """'Keep scores as integer tenths internally so no float rounding creeps into totals.'"""
    assert isinstance(score_tenths(4, 5, BHOOS), int)
    assert sum(score_deal(1, 2, BHOOS) - 1 for _ in range(10)) == 1  # ten 0.1s are exactly 1
    rng = random.Random(99)
    for seed in range(3):
        game = play_game(Game(BHOOS, seed=seed), rng)
        assert all(type(s) is int for s in game.scores)
        exact = [
            sum((score_deal(d.calls[s], d.won[s], BHOOS) for d in game.finished), Decimal(0))
            for s in range(4)
        ]
        assert [Decimal(s) / 10 for s in game.scores] == exact
        record = game_record(game)
        assert [Decimal(str(s)) for s in record["scores"]] == exact


def test_bhoos_plays_5_deals_per_game() -> None:
    """'5 deals per game.'"""
    assert BHOOS.deals_per_game == 5
    game = Game(BHOOS, seed=4)
    rng = random.Random(4)
    for _ in range(5):
        assert not game.over
        play_randomly(game, rng)
    assert game.over
    assert len(game.finished) == 5
