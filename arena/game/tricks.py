"""Trick rules on bitmasks: the one copy used by the state machine, playouts and bots.

A trick in progress is summarised by three ints: the led suit, the highest card of the led
suit so far and the highest spade so far (-1 for none). ``legal_mask`` needs nothing else,
which is what keeps playouts cheap.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from arena.game.cards import ABOVE, CARDS, SPADE_MASK, SPADES, SUIT_MASK, SUIT_OF, Card, mask_of
from arena.game.rules import Ruleset

HEAD_NEVER, HEAD_UNLESS_TRUMPED, HEAD_ALWAYS = 0, 1, 2
_HEAD_CODES = {"never": HEAD_NEVER, "unless_trumped": HEAD_UNLESS_TRUMPED, "always": HEAD_ALWAYS}


def head_code(rules: Ruleset) -> int:
    return _HEAD_CODES[rules.must_head]


def legal_mask(
    hand: int, led: int, best_led: int, best_spade: int, head: int, must_trump: bool
) -> int:
    """The cards of ``hand`` (a mask) that may be played to the trick summarised."""
    if led < 0:
        return hand
    follow = hand & SUIT_MASK[led]
    if follow:
        if head == HEAD_ALWAYS or (head == HEAD_UNLESS_TRUMPED and (best_spade < 0 or led == 0)):
            higher = follow & ABOVE[best_led]
            if higher:
                return higher
        return follow
    if must_trump:
        spades = hand & SPADE_MASK
        if spades:
            higher = spades & ABOVE[best_spade] if best_spade >= 0 else spades
            if higher:
                return higher
    return hand


def add_card(card: int, led: int, best_led: int, best_spade: int) -> tuple[int, int, int]:
    """The trick summary after ``card`` is played to it."""
    suit = SUIT_OF[card]
    if led < 0:
        return suit, card, card if suit == SPADES else -1
    if suit == led and card > best_led:
        best_led = card
    if suit == SPADES and card > best_spade:
        best_spade = card
    return led, best_led, best_spade


def summarise(trick: Sequence[int]) -> tuple[int, int, int]:
    led, best_led, best_spade = -1, -1, -1
    for card in trick:
        led, best_led, best_spade = add_card(card, led, best_led, best_spade)
    return led, best_led, best_spade


def legal_plays(hand: Iterable[Card], trick: Sequence[Card], rules: Ruleset) -> list[Card]:
    """The legal cards, lowest index first, for ``hand`` when ``trick`` has been played."""
    held = mask_of(hand)
    led, best_led, best_spade = summarise(trick)
    legal = legal_mask(held, led, best_led, best_spade, head_code(rules), rules.must_trump)
    return [CARDS[i] for i in range(52) if legal >> i & 1]


def winning_card(led: int, best_led: int, best_spade: int) -> int:
    return best_spade if best_spade >= 0 else best_led


def trick_winner(trick: Sequence[Card]) -> int:
    """Index into a complete trick (in play order) of the card that wins it."""
    if len(trick) != 4:
        raise ValueError(f"a complete trick has 4 cards, not {len(trick)}")
    if len({int(c) for c in trick}) != 4:
        raise ValueError("a trick cannot hold the same card twice")
    return [int(c) for c in trick].index(winning_card(*summarise(trick)))
