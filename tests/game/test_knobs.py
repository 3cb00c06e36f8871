"""The variant knobs of rules.md ("Other knobs seen in the wild"): settings, not code forks."""

from __future__ import annotations

import dataclasses
import random

import pytest

from arena.game import (
    BHOOS,
    PAGAT,
    RULESETS,
    Deal,
    Game,
    IllegalAction,
    Ruleset,
    game_record,
    get_ruleset,
    parse_card,
    score_deal,
    validate_record,
)
from arena.game.cards import SPADE_MASK
from arena.game.deal import FACE_MASK
from tests.game.helpers import call_all, deal_from, legal, play_game, suit

ALWAYS = PAGAT.with_(name="always", must_head="always")
OPTIONAL_TRUMP = PAGAT.with_(name="optional-trump", must_trump=False)


# -- call range -----------------------------------------------------------------------------


@pytest.mark.parametrize("low, high", [(1, 8), (1, 13), (2, 13)])
def test_call_range_knob(low: int, high: int) -> None:
    """'call range | 1–8, 1–13, 2–13'"""
    rules = PAGAT.with_(min_call=low, max_call=high)
    assert list(Deal(rules, seed=0).legal_calls()) == list(range(low, high + 1))
    for ok in (low, high):
        deal = Deal(rules, seed=0)
        deal.call(deal.to_act, ok)
    for bad in (low - 1, high + 1):
        deal = Deal(rules, seed=0)
        with pytest.raises(IllegalAction, match=f"calls range {low}-{high}"):
            deal.call(deal.to_act, bad)
        assert deal.calls == [None] * 4


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"min_call": 0}, "call range"),
        ({"max_call": 14}, "call range"),
        ({"min_call": 9, "max_call": 8}, "call range"),
        ({"must_head": "sometimes"}, "must_head must be one of never, unless_trumped, always"),
        ({"scoring": "golf"}, "scoring must be one of"),
        ({"redeal": "always"}, "redeal must be one of"),
        ({"deals_per_game": 0}, "deals_per_game"),
        ({"deals_per_game": 101}, "deals_per_game"),
    ],
)
def test_bad_knob_values_are_refused(changes: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        PAGAT.with_(**changes)


def test_rulesets_are_data_round_tripping_through_dicts() -> None:
    for rules in (PAGAT, BHOOS, ALWAYS, OPTIONAL_TRUMP, PAGAT.with_(redeal="no_face")):
        assert Ruleset.from_dict(rules.to_dict()) == rules
    with pytest.raises(ValueError, match="unknown ruleset keys: colour"):
        Ruleset.from_dict({**PAGAT.to_dict(), "colour": "red"})
    assert get_ruleset("pagat") is PAGAT and get_ruleset("bhoos") is BHOOS
    assert dict(RULESETS) == {"pagat": PAGAT, "bhoos": BHOOS}
    with pytest.raises(ValueError, match="unknown ruleset 'nepal'; choose one of: pagat, bhoos"):
        get_ruleset("nepal")
    with pytest.raises(dataclasses.FrozenInstanceError):
        PAGAT.min_call = 1  # type: ignore[misc]
    with pytest.raises(TypeError):
        RULESETS["mine"] = PAGAT  # type: ignore[index]


# -- must head ------------------------------------------------------------------------------


def test_must_head_never_is_pagat() -> None:
    """'must head the trick in the led suit | never (pagat)'"""
    assert PAGAT.must_head == "never"
    assert legal(PAGAT, "2H TH", "5H") == {"2H", "TH"}


def test_must_head_unless_trumped_is_bhoos() -> None:
    """'must head the trick in the led suit | unless trumped (bhoos)'"""
    assert BHOOS.must_head == "unless_trumped"
    assert legal(BHOOS, "2H TH", "5H") == {"TH"}
    assert legal(BHOOS, "2H TH", "5H 3S") == {"2H", "TH"}


def test_must_head_always_even_when_trumped() -> None:
    """'must head the trick in the led suit | even when trumped'"""
    assert legal(ALWAYS, "2H TH AS", "5H") == {"TH"}
    assert legal(ALWAYS, "2H TH AS", "5H 3S") == {"TH"}
    assert legal(ALWAYS, "2H TH AS", "5H 3S 9H") == {"TH"}
    assert legal(ALWAYS, "2H 7H AS", "5H 3S 9H") == {"2H", "7H"}  # unable: any heart
    assert legal(ALWAYS, "2S 9S AH", "5S") == {"9S"}
    # heading is about the led suit only: the void rules are unchanged
    assert legal(ALWAYS, "2S KS AD", "5H QS") == {"KS"}
    assert legal(ALWAYS, "2S AD", "5H QS") == {"2S", "AD"}


# -- void in led suit -----------------------------------------------------------------------


def test_void_must_trump_is_pagat_and_bhoos() -> None:
    """'void in led suit | must trump (pagat)'"""
    assert PAGAT.must_trump and BHOOS.must_trump
    assert legal(PAGAT, "2S AD", "5H") == {"2S"}


def test_trumping_optional_lets_a_void_player_play_any_card() -> None:
    """'void in led suit | trumping optional'"""
    assert legal(OPTIONAL_TRUMP, "2S KS AD 4C", "5H") == {"2S", "KS", "AD", "4C"}
    assert legal(OPTIONAL_TRUMP, "2S KS AD 4C", "5H QS") == {"2S", "KS", "AD", "4C"}
    assert legal(OPTIONAL_TRUMP, "AD 4C", "5S") == {"AD", "4C"}
    # following suit is still compulsory
    assert legal(OPTIONAL_TRUMP, "2H KS", "5H") == {"2H"}
    bhoos_optional = BHOOS.with_(must_trump=False)
    assert legal(bhoos_optional, "2H TH KS", "5H") == {"TH"}
    assert legal(bhoos_optional, "KS AD", "5H") == {"KS", "AD"}


def test_trumping_optional_through_the_state_machine() -> None:
    """Seat 2, void in hearts with spades in hand, discards a diamond on the ace of hearts:
    refused when trumping is compulsory, accepted when it is optional."""
    hands = [
        "AS KS QS JS TS 9S 8S AD KD QD JD TD 9D",
        suit("H"),
        "7S 6S 5S 4S 3S 2S 8D 7D 6D 5D 4D 3D 2D",
        suit("C"),
    ]
    strict = deal_from(PAGAT, hands, dealer=0)
    call_all(strict)
    strict.play(1, parse_card("AH"))
    with pytest.raises(IllegalAction, match="cannot play 2D: not legal here"):
        strict.play(2, parse_card("2D"))
    assert {str(c) for c in strict.legal_cards()} == {"2S", "3S", "4S", "5S", "6S", "7S"}

    loose = deal_from(OPTIONAL_TRUMP, hands, dealer=0)
    call_all(loose)
    loose.play(1, parse_card("AH"))
    loose.play(2, parse_card("2D"))
    loose.play(3, parse_card("2C"))
    assert loose.play(0, parse_card("AD")) == 1


# -- redeal ---------------------------------------------------------------------------------

REDEALS = {
    "no_spade": lambda h: not h & SPADE_MASK,
    "no_face": lambda h: not h & FACE_MASK,
    "no_spade_or_face": lambda h: not h & SPADE_MASK or not h & FACE_MASK,
}


def _seeds_with_a_bad_hand(bad, dealer: int = 0, count: int = 3) -> list[int]:
    found = []
    for seed in range(5000):
        if any(bad(h) for h in Deal(PAGAT, seed=seed, dealer=dealer).hands):
            found.append(seed)
            if len(found) == count:
                return found
    raise AssertionError("no seed found")  # pragma: no cover


def test_face_cards_are_jack_queen_king() -> None:
    assert sum(parse_card(r + s).bit for r in "JQK" for s in "SHDC") == FACE_MASK


@pytest.mark.parametrize("mode", sorted(REDEALS))
@pytest.mark.parametrize("dealer", [0, 3])
def test_redeal_leaves_no_hand_without_a_spade_or_face_card(mode: str, dealer: int) -> None:
    """'redeal | a hand with no spade, or no face card, may be thrown in and redealt'
    (automatic on a platform)."""
    bad = REDEALS[mode]
    rules = PAGAT.with_(redeal=mode)
    for seed in _seeds_with_a_bad_hand(bad, dealer):
        deal = Deal(rules, seed=seed, dealer=dealer)
        assert deal.redeals >= 1
        assert not any(bad(h) for h in deal.hands)
        assert [h.bit_count() for h in deal.hands] == [13] * 4
        again = Deal(rules, seed=seed, dealer=dealer, index=4, scores=(10, 20, 30, 40))
        assert (again.hands, again.redeals) == (deal.hands, deal.redeals)
        # the unaffected (no-redeal) ruleset keeps the hand, so the knob changed the deal
        assert Deal(PAGAT, seed=seed, dealer=dealer).hands != deal.hands


@pytest.mark.parametrize("mode", sorted(REDEALS))
def test_redeal_keeps_good_deals_as_dealt(mode: str) -> None:
    rules = PAGAT.with_(redeal=mode)
    kept = 0
    for seed in range(40):
        plain = Deal(PAGAT, seed=seed)
        if not any(REDEALS[mode](h) for h in plain.hands):
            kept += 1
            deal = Deal(rules, seed=seed)
            assert (deal.hands, deal.redeals) == (plain.hands, 0)
    assert kept > 20


def test_redeal_in_a_game_is_recorded_and_replays() -> None:
    rules = PAGAT.with_(redeal="no_spade_or_face", deals_per_game=5)
    total = 0
    for seed in range(30):
        game = play_game(Game(rules, seed=seed), random.Random(seed))
        record = game_record(game)
        assert validate_record(record) is None
        total += sum(d["redeals"] for d in record["deals"])
        if total:
            break
    assert total > 0


# -- deals per game -------------------------------------------------------------------------


@pytest.mark.parametrize("n", [3, 4, 5])
def test_deals_per_game_knob(n: int) -> None:
    """'deals per game | 3, 4, 5'"""
    rules = BHOOS.with_(deals_per_game=n)
    game = Game(rules, seed=n)
    rng = random.Random(n)
    while not game.over:
        assert len(game.finished) < n
        call_all(game)
        while game.deal.phase == "playing":
            game.play(game.deal.to_act, rng.choice(game.deal.legal_cards()))
    assert len(game.finished) == n
    assert [d.index for d in game.finished] == list(range(n))
    with pytest.raises(IllegalAction, match="the game is over"):
        game.play(0, 0)


# -- other scoring knobs --------------------------------------------------------------------


def test_scoring_knob_is_independent_of_the_play_knobs() -> None:
    mixed = PAGAT.with_(scoring="bhoos")
    assert score_deal(4, 5, mixed) == score_deal(4, 5, BHOOS)
    assert legal(mixed, "2H TH", "5H") == {"2H", "TH"}
    assert score_deal(9, 9, PAGAT.with_(bonus_call=10)) == 9
    assert score_deal(10, 11, PAGAT.with_(bonus_call=10, bonus_points=20)) == 20
