"""What one seat can infer about the hidden hands from the open play, and how likely a call is.

Hard evidence: every card a player put down was legal for the hand it held then. The engine's
``legal_mask`` tells which single card, had the player held it, would have made that play
illegal: a card of the led suit (it did not follow), a spade that heads the trick (it did not
trump or overtrump under must-trump), a higher card of the led suit (it did not head under
must-head). Those cards are excluded from that player's hand for the rest of the deal. One
blocking card is always enough to make a play illegal, so a hand is consistent with every
play exactly when it holds none of the excluded cards.

Soft evidence (what a seat would have called and played with a hand, not only what the
rules let it play) is read in ``reading``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from arena.game import Observation
from arena.game.cards import FULL_DECK, SUIT_MASK, mask_of
from arena.game.tricks import add_card, head_code, legal_mask


@dataclass(frozen=True)
class Inference:
    """The hidden cards and what each seat may hold. Masks are 52-bit card sets."""

    seat: int
    hand: int
    unseen: int  # neither in this seat's hand nor played
    played_by: tuple[int, ...]  # cards each seat has played this deal
    excluded: tuple[int, ...]  # cards each seat cannot hold (its own seat: none needed)
    need: tuple[int, ...]  # how many cards each seat still holds (0 for this seat)

    def allowed(self, card: int) -> int:
        """The seats (a 4-bit mask) that may hold unseen ``card``."""
        bits = 0
        for s in range(4):
            if s != self.seat and not self.excluded[s] >> card & 1:
                bits |= 1 << s
        return bits

    def voids(self, seat: int) -> int:
        """The suits (4-bit mask) ``seat`` is known to hold none of, among unseen cards."""
        out = 0
        for suit in range(4):
            unseen = self.unseen & SUIT_MASK[suit]
            if unseen and not unseen & ~self.excluded[seat]:
                out |= 1 << suit
        return out


def knowing(know: Inference, known: Mapping[int, int]) -> Inference:
    """``know`` with the hands of the seats in ``known`` (seat -> the cards it holds now)
    taken as given: each holds exactly its cards, and no other seat any of them. The fair-play
    audit values decisions so: under the true deal, or with a partner's hand."""
    taken = 0
    for hand in known.values():
        taken |= hand
    excluded = tuple(
        FULL_DECK & ~known[s] if s in known else e | taken for s, e in enumerate(know.excluded)
    )
    return replace(know, excluded=excluded)


def infer(obs: Observation) -> Inference:
    """Everything the open play of this deal says about the hidden hands."""
    head, must_trump = head_code(obs.rules), obs.rules.must_trump
    hand = mask_of(obs.hand)
    played_by = [0, 0, 0, 0]
    excluded = [0, 0, 0, 0]
    for trick in (*obs.tricks, obs.current):
        summary = (-1, -1, -1)
        for i, card in enumerate(trick.cards):
            s = trick.seat_of(i)
            if s != obs.seat and summary[0] >= 0:
                excluded[s] |= blocking(card, summary, head, must_trump)
            played_by[s] |= 1 << card
            summary = add_card(card, *summary)
    played = played_by[0] | played_by[1] | played_by[2] | played_by[3]
    unseen = FULL_DECK & ~hand & ~played
    need = tuple(0 if s == obs.seat else 13 - played_by[s].bit_count() for s in range(4))
    return Inference(obs.seat, hand, unseen, tuple(played_by), tuple(excluded), need)


def blocking(card: int, summary: tuple[int, int, int], head: int, must_trump: bool) -> int:
    """The cards whose presence in the player's hand would have made ``card`` illegal."""
    out = 0
    mine = 1 << card
    for other in range(52):
        if other != card and not legal_mask(mine | 1 << other, *summary, head, must_trump) & mine:
            out |= 1 << other
    return out
