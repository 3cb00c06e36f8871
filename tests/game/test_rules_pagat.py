"""One scenario per sentence of the pagat rules (rules.md, default preset).

Sentences that the bhoos preset shares are run under both presets; the sentences bhoos
changes (calls, heading the trick, scoring) are pinned for pagat here and for bhoos in
``test_rules_bhoos.py``.
"""

from __future__ import annotations

import random
from decimal import Decimal
from itertools import pairwise

import pytest

from arena.game import (
    CARDS,
    OVER,
    PAGAT,
    PLAYING,
    Deal,
    Game,
    IllegalAction,
    Ruleset,
    cards_of,
    parse_card,
    parse_cards,
    score_deal,
    score_tenths,
    trick_winner,
)
from arena.game.deal import sha256_deck
from tests.game.helpers import (
    PRESET_IDS,
    PRESETS,
    RANKS_HIGH_TO_LOW,
    call_all,
    deal_from,
    legal,
    mask,
    play_game,
    play_randomly,
    suit,
)

both = pytest.mark.parametrize("rules", PRESETS, ids=PRESET_IDS)


def winner(text: str) -> int:
    return trick_winner(parse_cards(text))


# -- Players and cards ----------------------------------------------------------------------


@both
def test_four_players_and_a_standard_52_card_pack(rules: Ruleset) -> None:
    """'4 players, standard 52-card pack.'"""
    deal = Deal(rules, seed=1)
    assert len(deal.hands) == 4
    assert sorted(c for h in deal.hands for c in cards_of(h)) == CARDS


@pytest.mark.parametrize("high, low", list(pairwise(RANKS_HIGH_TO_LOW)))
@pytest.mark.parametrize("led", "SHDC")
def test_in_every_suit_a_k_q_j_10_down_to_2_high_to_low(high: str, low: str, led: str) -> None:
    """'In every suit A K Q J 10 9 8 7 6 5 4 3 2, high to low.'"""
    other = next(s for s in "HDC" if s != led)  # off-suit non-spades never win the trick
    fillers = f"A{other} K{other}"
    assert winner(f"{low}{led} {high}{led} {fillers}") == 1
    assert winner(f"{high}{led} {low}{led} {fillers}") == 0


def test_spades_are_permanent_trumps_any_spade_beats_any_other_card() -> None:
    """'Spades are permanent trumps: any spade beats any card of another suit.'"""
    two_of_spades = parse_card("2S")
    for card in CARDS:
        if card.suit == 0:
            continue
        others = [c for c in CARDS if c.suit != 0 and c != card][:2]
        assert trick_winner([card, two_of_spades, *others]) == 1
        assert trick_winner([card, *others, two_of_spades]) == 3


@both
def test_deal_and_play_go_counter_clockwise(rules: Ruleset) -> None:
    """'Deal and play go counter-clockwise (to the right).' Seat s+1 is to the right of s."""
    deal = Deal(rules, seed=5, dealer=2)
    order = []
    while deal.phase != PLAYING:
        order.append(deal.to_act)
        deal.call(deal.to_act, rules.min_call)
    assert order == [3, 0, 1, 2]
    for _ in range(13):
        leader, seats = deal.to_act, []
        for _ in range(4):
            seats.append(deal.to_act)
            deal.play(deal.to_act, deal.legal_cards()[0])
        assert seats == [(leader + k) % 4 for k in range(4)]


# -- Deal -----------------------------------------------------------------------------------


@both
@pytest.mark.parametrize("first", range(4))
def test_any_player_may_deal_first_and_the_deal_passes_to_the_right(
    rules: Ruleset, first: int
) -> None:
    """'Any player may deal first; afterwards the deal passes to the right.'"""
    game = play_game(Game(rules, seed=11, first_dealer=first), random.Random(first))
    assert [d.dealer for d in game.finished] == [
        (first + i) % 4 for i in range(rules.deals_per_game)
    ]


@both
@pytest.mark.parametrize("dealer", range(4))
def test_the_dealer_deals_all_cards_one_at_a_time_so_each_player_has_13(
    rules: Ruleset, dealer: int
) -> None:
    """'The dealer deals all cards one at a time, so each player has 13.' The shuffled deck
    (the specified ``sha256`` shuffle, pinned so that records replay) goes out one at a time,
    starting with the dealer's right and going counter-clockwise."""
    seed = 1234
    deck = sha256_deck(seed)
    deal = Deal(rules, seed=seed, dealer=dealer)
    assert [h.bit_count() for h in deal.hands] == [13] * 4
    for i, card in enumerate(deck):
        assert deal.hands[(dealer + 1 + i) % 4] >> card & 1, f"card {i} of the deck"


# -- Calling --------------------------------------------------------------------------------


@both
@pytest.mark.parametrize("dealer", range(4))
def test_calling_starts_at_the_dealers_right_and_ends_with_the_dealer(
    rules: Ruleset, dealer: int
) -> None:
    """'Starting with the player to the dealer's right and going counter-clockwise, ending
    with the dealer, each player calls a number of tricks.'"""
    deal = Deal(rules, seed=3, dealer=dealer)
    order = []
    for n in (rules.min_call, rules.min_call + 1, rules.min_call, rules.min_call + 1):
        seat = deal.to_act
        order.append(seat)
        for other in range(4):
            if other != seat:
                with pytest.raises(IllegalAction, match="out of turn"):
                    deal.call(other, n)
        deal.call(seat, n)
    assert order == [(dealer + k) % 4 for k in (1, 2, 3, 4)]
    assert order[-1] == dealer
    assert deal.calls[dealer] == rules.min_call + 1


def test_pagat_calls_are_at_least_2() -> None:
    """'each player calls a number of tricks: **at least 2**'"""
    assert PAGAT.min_call == 2
    for bad in (1, 0, -1):
        deal = Deal(PAGAT, seed=0)
        with pytest.raises(IllegalAction, match=f"cannot call {bad}: calls range 2-13"):
            deal.call(deal.to_act, bad)
        assert deal.calls == [None] * 4
    deal = Deal(PAGAT, seed=0)
    deal.call(deal.to_act, 2)
    assert deal.calls[1] == 2


def test_pagat_calls_go_up_to_13() -> None:
    """'(the maximum sensible call is 12; the rules set no hard maximum below 13)'.
    Seed 000 (Ukrainian): 'Максимальний розумний виклик - 12' (the maximum *sensible* call
    is 12): 13 is allowed, only pointless, as 12 already scores +13 for 12 or 13 tricks."""
    assert list(Deal(PAGAT, seed=0).legal_calls()) == list(range(2, 14))
    deal = Deal(PAGAT, seed=0)
    for _ in range(4):
        deal.call(deal.to_act, 13)
    assert deal.calls == [13] * 4
    deal = Deal(PAGAT, seed=0)
    with pytest.raises(IllegalAction, match="cannot call 14"):
        deal.call(deal.to_act, 14)
    assert score_deal(12, 13, PAGAT) == score_deal(13, 13, PAGAT) == 13


# -- Play -----------------------------------------------------------------------------------


@both
@pytest.mark.parametrize("dealer", range(4))
def test_the_player_to_the_dealers_right_leads_to_the_first_trick(
    rules: Ruleset, dealer: int
) -> None:
    """'The player to the dealer's right leads to the first trick.'"""
    deal = Deal(rules, seed=8, dealer=dealer)
    call_all(deal)
    assert deal.phase == PLAYING
    assert deal.to_act == deal.leader == (dealer + 1) % 4
    for seat in range(4):
        assert bool(deal.legal_cards(seat)) == (seat == (dealer + 1) % 4)


@both
def test_the_winner_of_each_trick_leads_the_next(rules: Ruleset) -> None:
    """'the winner of each trick leads the next.' Seat 1 leads the ace of hearts; seat 0,
    void in hearts, trumps and wins, so seat 0 (not seat 1, not seat 2) leads next."""
    hands = [suit("S"), suit("H"), suit("D"), suit("C")]
    deal = deal_from(rules, hands, dealer=0)
    call_all(deal)
    assert deal.play(1, parse_card("AH")) is None
    deal.play(2, parse_card("2D"))
    deal.play(3, parse_card("2C"))
    assert deal.play(0, parse_card("2S")) == 0
    assert deal.leader == deal.to_act == 0
    assert [t.winner for t in deal.tricks] == [0]
    rng = random.Random(0)
    while deal.phase != OVER:
        leader = deal.to_act
        won_before = list(deal.won)
        for _ in range(4):
            w = deal.play(deal.to_act, rng.choice(deal.legal_cards()))
        assert deal.tricks[-1].leader == leader
        assert w == deal.tricks[-1].winner
        assert deal.won[w] == won_before[w] + 1
        if deal.phase != OVER:
            assert deal.to_act == deal.leader == w


@both
def test_any_card_may_be_led(rules: Ruleset) -> None:
    """'Any card may be led.'"""
    hand = "AS 2S KH 3H 9D 4C"
    assert legal(rules, hand) == set(hand.split())


@both
def test_the_other_three_must_follow_suit_if_they_can(rules: Ruleset) -> None:
    """'The other three must follow suit if they can.' (Both hearts head the trick, so the
    bhoos heading rule allows them too; what matters is that no other suit is allowed.)"""
    hand = "AH KH AS 2S AD 3C"
    assert legal(rules, hand, "QH") == {"AH", "KH"}
    assert legal(rules, hand, "QH 2D") == {"AH", "KH"}
    assert legal(rules, hand, "QH 2D 3S") != set()
    assert legal(rules, hand, "QH 2D 3S") <= {"AH", "KH"}
    assert legal(rules, "AD KD 2S 3C", "5D") == {"AD", "KD"}
    assert legal(rules, "AC 2S 3H", "5C 9C") == {"AC"}


@both
def test_a_void_player_must_trump_with_a_spade_high_enough_to_beat_every_spade_in_the_trick(
    rules: Ruleset,
) -> None:
    """'A player who cannot follow suit ("void" in it) must trump with a spade, provided that
    spade is high enough to beat every spade already in the trick.' Lower spades than the
    trick's top spade are then not allowed."""
    assert legal(rules, "2S KS AS AD 4C", "5H QS") == {"KS", "AS"}
    # every spade in the trick counts, not only the first: TS beats 9S but not QS
    assert legal(rules, "TS KS 3S AD", "5H 9S QS") == {"KS"}
    assert legal(rules, "TS KS 3S AD", "5H QS 9S") == {"KS"}


@both
def test_if_no_spade_is_in_the_trick_yet_any_spade_will_do(rules: Ruleset) -> None:
    """'If no spade is in the trick yet, any spade will do.' (Any spade, no other suit.)"""
    assert legal(rules, "2S KS AD 4C", "5H") == {"2S", "KS"}
    assert legal(rules, "2S KS AD 4C", "5H 9H AC") == {"2S", "KS"}


@both
def test_void_with_no_spade_may_play_any_card(rules: Ruleset) -> None:
    """'A player who is void in the led suit and holds no spade high enough to head the trick
    may play any card' -- here holding no spade at all."""
    assert legal(rules, "AD 2D KC 3C", "5H 9H") == {"AD", "2D", "KC", "3C"}
    assert legal(rules, "AD 2D KC 3C", "5H 9S") == {"AD", "2D", "KC", "3C"}


@both
def test_void_with_only_lower_spades_may_waste_a_spade_or_throw_another_suit(
    rules: Ruleset,
) -> None:
    """'... may play any card: a low spade ("wasting" it) or a card of another suit.'"""
    assert legal(rules, "2S 3S AD 4C", "5H QS") == {"2S", "3S", "AD", "4C"}
    assert legal(rules, "2S JS AD", "5H 9S QS 3H") == {"2S", "JS", "AD"}
    # only spades left, all lower: any of them
    assert legal(rules, "2S 3S", "AH KS") == {"2S", "3S"}


@both
def test_spades_led_and_void_in_spades_may_play_any_card(rules: Ruleset) -> None:
    """A spade lead with no spade in hand: not following, no spade to trump with, so any
    card (the void rules above, with spades as the led suit)."""
    assert legal(rules, "AD 4C 7H", "5S") == {"AD", "4C", "7H"}
    assert legal(rules, "AD 4C 7H", "5S AS 2H") == {"AD", "4C", "7H"}


def test_pagat_following_suit_need_not_head_the_trick() -> None:
    """'A player who can follow suit need not head the trick: any card of the led suit is
    legal.'"""
    assert legal(PAGAT, "AH 7H 2H AS", "9H") == {"AH", "7H", "2H"}
    assert legal(PAGAT, "AH 7H 2H AS", "9H KH") == {"AH", "7H", "2H"}
    assert legal(PAGAT, "AH 7H 2H AS", "9H 3S") == {"AH", "7H", "2H"}


def test_pagat_need_not_head_when_spades_are_led_too() -> None:
    """'This holds when spades are led too.' Seed 000: 'players may play higher or lower
    spades as they wish.'"""
    assert legal(PAGAT, "AS 7S 2S AH", "9S") == {"AS", "7S", "2S"}
    assert legal(PAGAT, "AS 7S 2S AH", "9S KS") == {"AS", "7S", "2S"}


@both
def test_the_trick_is_won_by_the_highest_spade_or_else_the_highest_card_of_the_led_suit(
    rules: Ruleset,
) -> None:
    """'The trick is won by the highest spade in it or, if it holds no spade, by the highest
    card of the suit led.'"""
    assert winner("AH 2S KH 3S") == 3
    assert winner("AH 3S KH 2S") == 1
    assert winner("5H AD KH 2H") == 2  # the off-suit ace does not win
    assert winner("5H AD AC 2H") == 0  # the lead wins when nobody follows higher
    assert winner("5S AS 2H 3S") == 1
    # the same through a deal: the trick's winner is the seat of the winning card
    hands = [suit("S"), suit("H"), suit("D"), suit("C")]
    deal = deal_from(rules, hands, dealer=3)  # seat 0 leads
    call_all(deal)
    for seat, card in zip((0, 1, 2, 3), ("2S", "AH", "AD", "AC"), strict=True):
        w = deal.play(seat, parse_card(card))
    assert w == 0
    assert deal.tricks[0].cards == tuple(parse_cards("2S AH AD AC"))


@both
def test_trick_winner_refuses_incomplete_or_duplicated_tricks(rules: Ruleset) -> None:
    with pytest.raises(ValueError, match="4 cards"):
        winner("AH KH")
    with pytest.raises(ValueError, match="same card"):
        winner("AH KH AH 2H")


# -- Scoring --------------------------------------------------------------------------------


@pytest.mark.parametrize("call", range(2, 14))
def test_pagat_success_is_winning_exactly_the_call_or_one_more(call: int) -> None:
    """'A player succeeds by winning exactly the call, or one more trick than the call.'"""
    for won in range(14):
        succeeded = score_tenths(call, won, PAGAT) > 0
        assert succeeded == (won in (call, call + 1)), f"call {call}, won {won}"


@pytest.mark.parametrize("won, points", [(4, 4), (5, 4)] + [(w, -4) for w in (0, 1, 2, 3, 6, 13)])
def test_pagat_success_adds_the_call_and_failure_subtracts_it(won: int, points: int) -> None:
    """'Success adds the call to the cumulative score; failure subtracts the call. Example:
    call 4 → 4 or 5 tricks scores +4; 3 or fewer, or 6 or more, scores −4.'"""
    assert score_deal(4, won, PAGAT) == points
    assert score_tenths(4, won, PAGAT) == 10 * points


@pytest.mark.parametrize(
    "won, points", [(9, 13), (10, 13)] + [(w, -9) for w in (0, 5, 8, 11, 12, 13)]
)
def test_pagat_calls_of_8_or_more_are_bonus_calls(won: int, points: int) -> None:
    """'Calls of 8 or more are bonus calls: success scores +13 instead of the call; failure
    subtracts the call as usual. Example: call 9 → 9 or 10 tricks +13; 8 or fewer, or 11 or
    more, −9.'"""
    assert score_deal(9, won, PAGAT) == points


def test_pagat_bonus_starts_at_8_not_below() -> None:
    """'Calls of 8 or more are bonus calls'"""
    assert score_deal(7, 7, PAGAT) == 7
    assert score_deal(7, 8, PAGAT) == 7
    assert score_deal(8, 8, PAGAT) == 13
    assert score_deal(8, 9, PAGAT) == 13
    assert score_deal(8, 10, PAGAT) == -8
    assert score_deal(12, 13, PAGAT) == 13
    assert score_deal(13, 13, PAGAT) == 13
    assert score_deal(13, 12, PAGAT) == -13
    assert isinstance(score_deal(4, 4, PAGAT), Decimal)


@both
def test_deal_points_add_up_to_the_cumulative_score(rules: Ruleset) -> None:
    """'Success adds the call to the cumulative score; failure subtracts the call.'"""
    game = play_game(Game(rules, seed=21), random.Random(21))
    totals = [0, 0, 0, 0]
    for deal in game.finished:
        assert deal.scores_before == tuple(totals)
        expected = [score_tenths(c, w, rules) for c, w in zip(deal.calls, deal.won, strict=True)]
        assert deal.points() == expected
        totals = [t + p for t, p in zip(totals, expected, strict=True)]
    assert game.scores == totals


# -- End ------------------------------------------------------------------------------------


def test_a_platform_fixes_the_number_of_deals_per_game_for_example_5() -> None:
    """'No fixed end: players go on as long as they like; the highest cumulative score wins.
    A platform therefore fixes the number of deals per game in its settings (e.g. 5).'"""
    assert PAGAT.deals_per_game == 5
    game = Game(PAGAT, seed=2)
    rng = random.Random(2)
    for i in range(5):
        assert not game.over
        assert game.deal.index == i
        play_randomly(game, rng)
    assert game.over
    assert len(game.finished) == 5
    with pytest.raises(IllegalAction, match="the game is over"):
        game.call(0, 2)


def test_a_hand_dealt_explicitly_is_kept_as_given() -> None:
    """(helper sanity) ``Deal(..., hands=...)`` plays exactly the hands given."""
    hands = [suit("S"), suit("H"), suit("D"), suit("C")]
    deal = deal_from(PAGAT, hands, dealer=1)
    assert deal.hands == [mask(h) for h in hands]
    assert deal.redeals == 0
