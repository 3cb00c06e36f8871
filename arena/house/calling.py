"""Hand evaluation for the call: expected tricks from sure and likely winners.

The weights are a least-squares fit of the tricks this bot actually takes in self-play
(greedy play, 20,000 bhoos hands) on simple hand features; the residual SD is about 0.9 trick.
Every spade is worth about half a trick (it wins a ruff or a late round), spades beyond the
fourth about one, and the honours add on top of that.

Written for CPython and numba alike (see ``cardsets``): the master compiles these functions
as its model of how another seat calls.
"""

from __future__ import annotations

from arena.game.cards import SPADE_MASK, SUIT_MASK
from arena.house.cardsets import popcount

ACE, KING, QUEEN, JACK = 12, 11, 10, 9
BASE = -0.4  # the fit's intercept: the per-spade and shortness terms overshoot a little
PER_SPADE, LONG_SPADE = 0.46, 0.54
SHORT_SUIT = (0.67, 0.35)  # a side void or singleton, when there are spades to ruff with


def spade_tricks(spades: int) -> float:
    """Expected spade tricks from length and honours (``spades`` is a card mask)."""
    n = popcount(spades)
    value = PER_SPADE * n + LONG_SPADE * max(0, n - 4)
    if spades >> ACE & 1:
        value += 0.9
    if spades >> KING & 1:
        value += 0.85 if n >= 2 else 0.15
    if spades >> QUEEN & 1 and n >= 3:
        value += 0.6
    if spades >> JACK & 1 and n >= 4:
        value += 0.5
    return value


def side_tricks(cards: int, can_ruff: bool) -> float:
    """Expected tricks from one side suit, given its holding as a 13-bit rank mask."""
    n = popcount(cards)
    value = SHORT_SUIT[n] if can_ruff and n < len(SHORT_SUIT) else 0.0
    ace, king, queen = cards >> ACE & 1, cards >> KING & 1, cards >> QUEEN & 1
    value += 0.93 * ace
    if king:
        value += 0.57 if ace else (0.65 if n >= 2 else 0.0)
    if queen and n >= 3 and (ace or king):
        value += 0.13 if ace and king else 0.3
    return value


def estimate_tricks(hand: int) -> float:
    """Tricks a hand (a card mask) should take when it plays for tricks."""
    spades = hand & SPADE_MASK
    total = BASE + spade_tricks(spades)
    for suit in (1, 2, 3):
        total += side_tricks((hand & SUIT_MASK[suit]) >> (13 * suit), spades != 0)
    return total


PAGAT_SHIFT = 0.35
BHOOS_SHIFT = 0.7


def call_for(estimate: float, shift: float, lowest: int, highest: int) -> int:
    """The call for an estimate: rounded after the shift, clamped to ``lowest..highest``."""
    call = int(estimate - shift + 0.5)
    return min(max(call, lowest), highest)


def choose_call(estimate: float, scoring: str, legal: tuple[int, ...]) -> int:
    """The call for an estimate, clamped to the legal range.

    Under pagat a call succeeds on exactly the call or one more and the bot ducks once it is
    made, so the call sits just below the estimate; under bhoos an undertrick costs the whole
    call while an overtrick costs little, so it sits lower.
    """
    shift = PAGAT_SHIFT if scoring == "pagat" else BHOOS_SHIFT
    return call_for(estimate, shift, legal[0], legal[-1])
