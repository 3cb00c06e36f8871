"""Card play of the heuristic bot: win cheaply while tricks are needed, duck once they are not.

Both halves work on a ``View`` (bitmasks of what is still out and who is void) and only ever
return one of the legal cards they are given.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.bots.house.knowledge import View
from arena.game import Card
from arena.game.cards import ABOVE, CARDS, SPADE_MASK, SUIT_MASK

SAFE = 0.5  # win with a card only when it holds the trick at least this often
SIDE_SUITS = (1, 2, 3)


def _top(mask: int) -> int:
    return mask.bit_length() - 1


def _low(mask: int) -> int:
    return (mask & -mask).bit_length() - 1


# -- wanting tricks ------------------------------------------------------------------------
def take(view: View, legal: Sequence[Card]) -> Card:
    """A card for a seat that still wants tricks."""
    if view.n == 0:
        return CARDS[lead_to_win(view)]
    winners = [c for c in legal if view.beats(c)]
    if winners:
        if view.n == 3:
            return winners[0]
        later = view.later()
        for card in winners:  # lowest first: the cheapest card that probably holds
            if view.hold_prob(card, later) >= SAFE:
                return card
    return min(legal, key=lambda c: _keep_value(view, c))


def _keep_value(view: View, card: int) -> int:
    """How much a card is worth keeping: spades and masters are kept, low side cards go."""
    value = card % 13
    if card < 13:
        value += 13
    if view.is_master(card):
        value += 8
    return value


def lead_to_win(view: View) -> int:
    """Lead a master that is likely to hold, else draw trumps, else lead low."""
    hand, unseen = view.hand, view.unseen
    later = view.later()
    best, best_p = -1, SAFE
    for suit in SIDE_SUITS:
        cards = hand & SUIT_MASK[suit]
        if cards and view.is_master(top := _top(cards)):
            p = view.hold_prob(top, later)
            if p > best_p:
                best, best_p = top, p
    spades = hand & SPADE_MASK
    drawing = best < 0 or spades.bit_count() >= 3  # pull trumps before cashing side masters
    if drawing and spades and unseen & SPADE_MASK and view.is_master(top := _top(spades)):
        return top
    if best >= 0:
        return best
    return lead_low(view)


def lead_low(view: View) -> int:
    """Lose the lead cheaply: a side singleton to ruff later, else low from the longest suit."""
    hand = view.hand
    if hand & SPADE_MASK:
        for suit in SIDE_SUITS:
            cards = hand & SUIT_MASK[suit]
            if cards.bit_count() == 1 and not view.is_master(_top(cards)):
                return _top(cards)
    best, best_len = -1, 0
    for suit in SIDE_SUITS:
        length = (hand & SUIT_MASK[suit]).bit_count()
        if length > best_len:
            best, best_len = suit, length
    if best < 0:
        return _low(hand)
    return _low(hand & SUIT_MASK[best])


# -- avoiding tricks -----------------------------------------------------------------------
def duck(view: View, legal: Sequence[Card]) -> Card:
    """A card for a seat that wants no more tricks: lose, shedding dangerous cards."""
    if view.n == 0:
        return CARDS[lead_to_lose(view)]
    losers = [c for c in legal if not view.beats(c)]
    if losers:
        return max(losers, key=lambda c: _danger(view, c))
    if view.n == 3:
        return max(legal, key=lambda c: _danger(view, c))
    later = view.later()
    return min(legal, key=lambda c: view.hold_prob(c, later))


def _danger(view: View, card: int) -> int:
    """How likely a card is to win a trick later: high, few cards above it out, a spade."""
    value = 2 * (card % 13) - 3 * (view.unseen & ABOVE[card]).bit_count()
    if card < 13:
        value += 12
    return value


def lead_to_lose(view: View) -> int:
    """The lowest card of the suit where the lead is least likely to hold."""
    later = view.later()
    best, best_p = -1, 2.0
    for suit in (*SIDE_SUITS, 0):
        cards = view.hand & SUIT_MASK[suit]
        if cards:
            low = _low(cards)
            p = view.hold_prob(low, later)
            if p < best_p:
                best, best_p = low, p
    return best
