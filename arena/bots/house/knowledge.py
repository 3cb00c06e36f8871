"""What one seat can infer from the open cards, as bitmasks: what is still out, who is void.

Everything is recomputed from the observation at each decision (a few microseconds), so the
bots keep no state between decisions and cannot drift out of sync with the referee. The trick
summary and its winner come from the rules engine (``arena.game.tricks``): one copy of the
rules.
"""

from __future__ import annotations

from arena.game import Observation
from arena.game.cards import ABOVE, SPADE_MASK, SUIT_MASK, SUIT_OF
from arena.game.tricks import add_card, summarise, winning_card

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
        if self.led < 0:
            return True
        return winning_card(*add_card(card, self.led, self.best_led, self.best_spade)) == card

    def holders(self, suit: int) -> int:
        """How many other seats may still hold cards of ``suit``."""
        bit = 1 << suit
        return sum(1 for s in range(4) if s != self.seat and not self.voids[s] & bit)

    def p_void(self, seat: int, suit: int) -> float:
        """Chance that ``seat`` holds no card of ``suit``, dealing the unseen ones at random."""
        if self.voids[seat] >> suit & 1:
            return 1.0
        k = self.holders(suit)
        return ((k - 1) / k) ** (self.unseen & SUIT_MASK[suit]).bit_count()

    def hold_prob(self, card: int, later: tuple[int, ...]) -> float:
        """Rough chance that ``card``, if it heads the trick now, still wins it at the end."""
        suit = SUIT_OF[card]
        led = suit if self.led < 0 else self.led
        if suit == 0 and led != 0:
            return self._overruff_free(card, later)
        p = 1.0
        higher = (self.unseen & ABOVE[card]).bit_count()
        if higher:
            bit = 1 << suit
            m = sum(1 for s in later if not self.voids[s] & bit)
            if m:
                k = self.holders(suit)
                p = ((k - m) / k) ** higher
        if suit and self.unseen & SPADE_MASK:
            for s in later:
                if not self.voids[s] & 1:
                    p *= 1.0 - self.p_void(s, suit)
        return p

    def _overruff_free(self, spade: int, later: tuple[int, ...]) -> float:
        """Chance no later seat, void in the led suit too, holds a spade above ``spade``."""
        higher = (self.unseen & ABOVE[spade]).bit_count()
        if not higher:
            return 1.0
        k = self.holders(0)
        p_high = 1.0 - ((k - 1) / k) ** higher if k else 0.0
        p = 1.0
        for s in later:
            if not self.voids[s] & 1:
                p *= 1.0 - self.p_void(s, self.led) * p_high
        return p

    def is_master(self, card: int) -> bool:
        """Whether no unseen card of the same suit ranks above ``card``."""
        return not self.unseen & ABOVE[card]


def scan(obs: Observation) -> tuple[int, list[int]]:
    """The mask of every card played so far and each seat's known voids.

    A seat that does not follow is void in the led suit; under ``must_trump`` a seat that
    discards a non-spade before any spade is in the trick is void in spades too.
    """
    must_trump = obs.rules.must_trump
    played = 0
    voids = [0, 0, 0, 0]
    for trick in (*obs.tricks, obs.current):
        summary = (-1, -1, -1)
        for i, card in enumerate(trick.cards):
            played |= 1 << card
            led, _, best_spade = summary
            suit = SUIT_OF[card]
            if led >= 0 and suit != led:
                seat = trick.seat_of(i)
                voids[seat] |= 1 << led
                if must_trump and suit != 0 and best_spade < 0:
                    voids[seat] |= 1
            summary = add_card(card, *summary)
    return played, voids
