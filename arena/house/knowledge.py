"""What one seat can infer from the open cards, as bitmasks: what is still out, who is void.

Everything is recomputed from the observation at each decision (a few microseconds), so the
bots keep no state between decisions and cannot drift out of sync with the referee. The trick
summary and its winner come from the rules engine (``arena.game.tricks``): one copy of the
rules.

The functions below the ``View`` take plain ints and an indexable ``voids`` (4-bit suit masks
by seat), so numba compiles the very same code for the master's opponent model (see
``cardsets``).
"""

from __future__ import annotations

from arena.game import Observation
from arena.game.cards import ABOVE, SPADE_MASK, SUIT_MASK
from arena.game.tricks import add_card, summarise, winning_card
from arena.house.cardsets import popcount

FULL_DECK = (1 << 52) - 1


class View:
    """The facts one decision needs: own hand, unseen cards, known voids, the trick so far."""

    __slots__ = ("best_led", "best_spade", "hand", "led", "n", "seat", "unseen", "voids")

    def __init__(self, obs: Observation) -> None:
        hand = 0
        for card in obs.hand:
            hand |= 1 << card
        played, voids = scan(obs)
        self.seat = obs.seat
        self.hand = hand
        self.unseen = FULL_DECK ^ hand ^ played
        self.voids = voids  # voids[seat]: bit s set when that seat is known to hold no suit s
        self.led, self.best_led, self.best_spade = summarise(obs.current.cards)
        self.n = len(obs.current.cards)

    def later(self) -> tuple[int, ...]:
        """The seats still to play to the current trick after this one."""
        return tuple((self.seat + k) & 3 for k in range(1, 4 - self.n))

    def beats(self, card: int) -> bool:
        """Whether ``card`` would head the trick as it stands (the engine's winner rule)."""
        return beats(card, self.led, self.best_led, self.best_spade)


def beats(card: int, led: int, best_led: int, best_spade: int) -> bool:
    """Whether ``card`` would head the trick summarised (any card heads an empty trick)."""
    if led < 0:
        return True
    a, b, c = add_card(card, led, best_led, best_spade)
    return winning_card(a, b, c) == card


def holders(voids, seat: int, suit: int) -> int:
    """How many seats other than ``seat`` may still hold cards of ``suit``."""
    k = 0
    for s in range(4):
        if s != seat and not voids[s] >> suit & 1:
            k += 1
    return k


def p_void(s: int, suit: int, seat: int, unseen: int, voids) -> float:
    """Chance that seat ``s`` holds no card of ``suit``, dealing the unseen ones at random
    (as ``seat`` sees them)."""
    if voids[s] >> suit & 1:
        return 1.0
    k = holders(voids, seat, suit)
    return ((k - 1) / k) ** float(popcount(unseen & SUIT_MASK[suit]))


def hold_prob(card: int, seat: int, n: int, led: int, unseen: int, voids) -> float:
    """Rough chance that ``card``, if it heads the trick now (``n`` cards in it, led suit
    ``led`` or -1), still wins it at the end."""
    suit = card // 13
    lead = suit if led < 0 else led
    if suit == 0 and lead != 0:
        return overruff_free(card, seat, n, led, unseen, voids)
    p = 1.0
    higher = popcount(unseen & ABOVE[card])
    if higher:
        m = 0
        for j in range(1, 4 - n):
            if not voids[(seat + j) & 3] >> suit & 1:
                m += 1
        if m:
            k = holders(voids, seat, suit)
            p = ((k - m) / k) ** float(higher)
    if suit and unseen & SPADE_MASK:
        for j in range(1, 4 - n):
            s = (seat + j) & 3
            if not voids[s] & 1:
                p *= 1.0 - p_void(s, suit, seat, unseen, voids)
    return p


def overruff_free(spade: int, seat: int, n: int, led: int, unseen: int, voids) -> float:
    """Chance no later seat, void in the led suit too, holds a spade above ``spade``."""
    higher = popcount(unseen & ABOVE[spade])
    if not higher:
        return 1.0
    k = holders(voids, seat, 0)
    p_high = 1.0 - ((k - 1) / k) ** float(higher) if k else 0.0
    p = 1.0
    for j in range(1, 4 - n):
        s = (seat + j) & 3
        if not voids[s] & 1:
            p *= 1.0 - p_void(s, led, seat, unseen, voids) * p_high
    return p


def is_master(card: int, unseen: int) -> bool:
    """Whether no unseen card of the same suit ranks above ``card``."""
    return not unseen & ABOVE[card]


def shown_void(card: int, seat: int, led: int, best_spade: int, must_trump: bool, voids) -> None:
    """Mark in ``voids`` what ``card``, played by ``seat`` to a trick with led suit ``led``
    and best spade ``best_spade``, shows: not following means void in the led suit, and under
    ``must_trump`` a discard before any spade is in the trick means void in spades too."""
    if led >= 0 and card // 13 != led:
        voids[seat] |= 1 << led
        if must_trump and card >= 13 and best_spade < 0:
            voids[seat] |= 1


def scan(obs: Observation) -> tuple[int, list[int]]:
    """The mask of every card played so far and each seat's known voids."""
    must_trump = obs.rules.must_trump
    played = 0
    voids = [0, 0, 0, 0]
    for trick in (*obs.tricks, obs.current):
        summary = (-1, -1, -1)
        for i, card in enumerate(trick.cards):
            played |= 1 << card
            shown_void(int(card), trick.seat_of(i), summary[0], summary[2], must_trump, voids)
            summary = add_card(card, *summary)
    return played, voids
