"""The search fast path: random playouts on bitmasks with the same trick rules.

A search bot samples the unseen cards into hands, then plays each sample out many times;
``playout`` does one such play-out with nothing but ints, using ``legal_mask`` and
``add_card`` from ``tricks`` so there is no second copy of the rules.
"""

from __future__ import annotations

import random as _random
from collections.abc import Callable
from dataclasses import dataclass

from arena.game.deal import PLAYING, Deal
from arena.game.tricks import add_card, head_code, legal_mask, winning_card


@dataclass
class Position:
    """A playing-phase position with every hand known (real or sampled)."""

    hands: list[int]
    to_act: int
    leader: int
    trick: list[int]
    won: list[int]
    head: int
    must_trump: bool

    @classmethod
    def from_deal(cls, deal: Deal, hands: list[int] | None = None) -> Position:
        if deal.phase != PLAYING:
            raise ValueError("playouts start from a deal in its playing phase")
        return cls(
            hands=list(deal.hands if hands is None else hands),
            to_act=deal.to_act or 0,
            leader=deal.leader,
            trick=[int(c) for c in deal.trick],
            won=list(deal.won),
            head=head_code(deal.rules),
            must_trump=deal.rules.must_trump,
        )


def playout(pos: Position, random: Callable[[], float] = _random.random) -> list[int]:
    """Play ``pos`` to the end with uniformly random legal cards; returns tricks won by seat."""
    hands, won, played = list(pos.hands), list(pos.won), [0, 0, 0, 0]
    head, must_trump, seat, leader = pos.head, pos.must_trump, pos.to_act, pos.leader
    led = best_led = best_spade = -1
    for n, card in enumerate(pos.trick):
        led, best_led, best_spade = add_card(card, led, best_led, best_spade)
        played[n] = card
    n = len(pos.trick)
    for _ in range(sum(h.bit_count() for h in hands)):
        hand = hands[seat]
        legal = legal_mask(hand, led, best_led, best_spade, head, must_trump) if n else hand
        for _ in range(int(random() * legal.bit_count())):
            legal &= legal - 1  # skip a uniformly random number of the legal cards
        card = (legal & -legal).bit_length() - 1
        hands[seat] = hand ^ (1 << card)
        led, best_led, best_spade = add_card(card, led, best_led, best_spade)
        played[n] = card
        n += 1
        if n == 4:
            leader = (leader + played.index(winning_card(led, best_led, best_spade))) % 4
            won[leader] += 1
            seat, n, led, best_led, best_spade = leader, 0, -1, -1, -1
        else:
            seat = (seat + 1) % 4
    return won
