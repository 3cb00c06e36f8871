"""Card play of the heuristic bot: win cheaply while tricks are needed, duck once they are not.

Every function takes the seat's view as plain ints (own ``hand``, the ``unseen`` cards, the
trick so far as ``n`` cards and its summary ``led``/``best_led``/``best_spade``) and ``voids``
(4-bit suit masks by seat), and returns one of the ``legal`` cards (a mask) it is given. The
same functions run in CPython for the heuristic bot and compiled by numba as the master's
model of another seat (see ``cardsets``); ties go to the lowest card.
"""

from __future__ import annotations

from arena.game.cards import ABOVE, SPADE_MASK, SUIT_MASK
from arena.house.cardsets import highest, lowest, popcount
from arena.house.knowledge import beats, hold_prob, is_master

SAFE = 0.5  # win with a card only when it holds the trick at least this often


def choose_card(legal, hand, unseen, voids, seat, n, led, best_led, best_spade, wants) -> int:
    """``take`` when one more trick helps the seat (``wants``), else ``duck``."""
    if wants:
        return take(legal, hand, unseen, voids, seat, n, led, best_led, best_spade)
    return duck(legal, hand, unseen, voids, seat, n, led, best_led, best_spade)


# -- wanting tricks ------------------------------------------------------------------------
def take(legal, hand, unseen, voids, seat, n, led, best_led, best_spade) -> int:
    """A card for a seat that still wants tricks."""
    if n == 0:
        return lead_to_win(hand, unseen, voids, seat)
    rest = legal
    while rest:  # lowest first: the cheapest card that probably holds
        card = lowest(rest)
        rest &= rest - 1
        if beats(card, led, best_led, best_spade) and (
            n == 3 or hold_prob(card, seat, n, led, unseen, voids) >= SAFE
        ):
            return card
    best, best_value = -1, 1 << 30
    rest = legal
    while rest:
        card = lowest(rest)
        rest &= rest - 1
        if keep_value(card, unseen) < best_value:
            best, best_value = card, keep_value(card, unseen)
    return best


def keep_value(card: int, unseen: int) -> int:
    """How much a card is worth keeping: spades and masters are kept, low side cards go."""
    value = card % 13
    if card < 13:
        value += 13
    if is_master(card, unseen):
        value += 8
    return value


def lead_to_win(hand: int, unseen: int, voids, seat: int) -> int:
    """Lead a master that is likely to hold, else draw trumps, else lead low."""
    best, best_p = -1, SAFE
    for suit in (1, 2, 3):
        cards = hand & SUIT_MASK[suit]
        if cards and is_master(highest(cards), unseen):
            p = hold_prob(highest(cards), seat, 0, -1, unseen, voids)
            if p > best_p:
                best, best_p = highest(cards), p
    spades = hand & SPADE_MASK
    drawing = best < 0 or popcount(spades) >= 3  # pull trumps before cashing side masters
    if drawing and spades and unseen & SPADE_MASK and is_master(highest(spades), unseen):
        return highest(spades)
    if best >= 0:
        return best
    return lead_low(hand, unseen)


def lead_low(hand: int, unseen: int) -> int:
    """Lose the lead cheaply: a side singleton to ruff later, else low from the longest suit."""
    if hand & SPADE_MASK:
        for suit in (1, 2, 3):
            cards = hand & SUIT_MASK[suit]
            if popcount(cards) == 1 and not is_master(highest(cards), unseen):
                return highest(cards)
    best, best_len = -1, 0
    for suit in (1, 2, 3):
        length = popcount(hand & SUIT_MASK[suit])
        if length > best_len:
            best, best_len = suit, length
    if best < 0:
        return lowest(hand)
    return lowest(hand & SUIT_MASK[best])


# -- avoiding tricks -----------------------------------------------------------------------
def duck(legal, hand, unseen, voids, seat, n, led, best_led, best_spade) -> int:
    """A card for a seat that wants no more tricks: lose, shedding dangerous cards."""
    if n == 0:
        return lead_to_lose(hand, unseen, voids, seat)
    best, best_value = -1, -(1 << 30)
    rest = legal
    while rest:  # the most dangerous card that loses
        card = lowest(rest)
        rest &= rest - 1
        if not beats(card, led, best_led, best_spade) and danger(card, unseen) > best_value:
            best, best_value = card, danger(card, unseen)
    if best >= 0:
        return best
    rest = legal
    if n == 3:  # it wins whatever it plays: shed the most dangerous card
        while rest:
            card = lowest(rest)
            rest &= rest - 1
            if danger(card, unseen) > best_value:
                best, best_value = card, danger(card, unseen)
        return best
    best_p = 2.0
    while rest:  # the card most likely to be beaten by a later seat
        card = lowest(rest)
        rest &= rest - 1
        p = hold_prob(card, seat, n, led, unseen, voids)
        if p < best_p:
            best, best_p = card, p
    return best


def danger(card: int, unseen: int) -> int:
    """How likely a card is to win a trick later: high, few cards above it out, a spade."""
    value = 2 * (card % 13) - 3 * popcount(unseen & ABOVE[card])
    if card < 13:
        value += 12
    return value


def lead_to_lose(hand: int, unseen: int, voids, seat: int) -> int:
    """The lowest card of the suit where the lead is least likely to hold."""
    best, best_p = -1, 2.0
    for suit in (1, 2, 3, 0):
        cards = hand & SUIT_MASK[suit]
        if cards:
            p = hold_prob(lowest(cards), seat, 0, -1, unseen, voids)
            if p < best_p:
                best, best_p = lowest(cards), p
    return best
