"""Cards and the bot-facing notation: rank then suit, ``2-9 T J Q K A`` and ``S H D C``."""

from __future__ import annotations

import random

import pytest

from arena.game import CARDS, Card, cards_of, format_cards, mask_of, parse_card, parse_cards

RANKS = "23456789TJQKA"
SUITS = "SHDC"


def test_the_pack_is_52_distinct_cards_of_4_suits_and_13_ranks() -> None:
    """'4 players, standard 52-card pack.'"""
    assert len(CARDS) == 52
    assert {str(c) for c in CARDS} == {r + s for r in RANKS for s in SUITS}
    assert [int(c) for c in CARDS] == list(range(52))


@pytest.mark.parametrize("card", CARDS, ids=str)
def test_every_card_round_trips_through_its_text(card: Card) -> None:
    """'Cards are two characters, rank then suit.'"""
    text = str(card)
    assert len(text) == 2
    assert parse_card(text) is card
    assert repr(card) == f"Card({text!r})"


def test_notation_examples_from_the_rules_page() -> None:
    """'`AS` = ace of spades, `TD` = ten of diamonds.'"""
    ace, ten = parse_card("AS"), parse_card("TD")
    assert (ace.suit, ace.rank) == (SUITS.index("S"), RANKS.index("A"))
    assert (ten.suit, ten.rank) == (SUITS.index("D"), RANKS.index("T"))


def test_within_a_suit_a_higher_rank_has_a_higher_index() -> None:
    """'In every suit A K Q J 10 9 8 7 6 5 4 3 2, high to low.'"""
    for s in SUITS:
        cards = [parse_card(r + s) for r in RANKS]
        assert cards == sorted(cards)
        assert [c.rank for c in cards] == list(range(13))
        assert len({c.suit for c in cards}) == 1


@pytest.mark.parametrize(
    "text",
    ["", "A", "S", "ASX", "1S", "10S", "as", "aS", "As", "AX", "ZS", " AS", "AS ", "S A", "SA"],
)
def test_bad_card_text_is_refused_with_the_text_named(text: str) -> None:
    """'The Bhoos contest writes the ace as `1` (`1S`); an adapter for its bots must translate.'
    (so the core itself refuses ``1S``, like any other malformed text)."""
    with pytest.raises(ValueError) as info:
        parse_card(text)
    assert repr(text) in str(info.value)


@pytest.mark.parametrize("value", [None, 5, b"AS", ["AS"], 1.0])
def test_non_text_is_refused(value: object) -> None:
    with pytest.raises(ValueError, match="not a card"):
        parse_card(value)  # type: ignore[arg-type]


def test_parse_cards_accepts_text_or_an_iterable_and_names_the_bad_item() -> None:
    assert parse_cards("AS TD 2C") == [parse_card("AS"), parse_card("TD"), parse_card("2C")]
    assert parse_cards(["AS", "TD"]) == parse_cards("AS TD")
    assert parse_cards("") == []
    with pytest.raises(ValueError, match="'1H'"):
        parse_cards("AS 1H 2C")


def test_masks_and_card_lists_round_trip() -> None:
    rng = random.Random(7)
    for _ in range(50):
        chosen = rng.sample(CARDS, rng.randint(0, 52))
        m = mask_of(chosen)
        assert m.bit_count() == len(chosen)
        assert cards_of(m) == sorted(chosen)  # lowest index first
        assert parse_cards(format_cards(chosen)) == chosen


def test_card_constructor_interns_and_checks_range() -> None:
    for i in range(52):
        assert Card(i) is CARDS[i]
        assert Card(CARDS[i]) is CARDS[i]
        assert CARDS[i].bit == 1 << i
    for bad in (-1, 52, 100):
        with pytest.raises(ValueError, match=str(bad)):
            Card(bad)
