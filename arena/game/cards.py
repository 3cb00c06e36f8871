"""Cards as small ints so that hands and tricks can be plain bitmasks.

A card's index is ``suit * 13 + rank`` with suits ``S H D C`` (0..3) and ranks ``2..A``
(0..12), so within a suit a higher card has a higher bit. ``Card`` subclasses ``int``:
the fast path uses it directly as a bit position, while ``str(card)`` gives the
bot-facing notation back.
"""

from __future__ import annotations

from collections.abc import Iterable

RANKS = "23456789TJQKA"
SUITS = "SHDC"
SPADES = 0
FULL_DECK = (1 << 52) - 1


class Card(int):
    """One of the 52 cards; instances are interned, so ``CARDS[i] is Card(i)``."""

    __slots__ = ()

    def __new__(cls, index: int) -> Card:
        if isinstance(index, Card):
            return index
        if not 0 <= index < 52:
            raise ValueError(f"card index out of range: {index!r}")
        return CARDS[index] if len(CARDS) == 52 else super().__new__(cls, index)

    @property
    def suit(self) -> int:
        return int(self) // 13

    @property
    def rank(self) -> int:
        return int(self) % 13

    @property
    def bit(self) -> int:
        return 1 << int(self)

    def __str__(self) -> str:
        return _TEXT[self]

    def __repr__(self) -> str:
        return f"Card({str(self)!r})"


_TEXT = [RANKS[i % 13] + SUITS[i // 13] for i in range(52)]
CARDS: list[Card] = []
CARDS.extend(Card(i) for i in range(52))
_BY_TEXT = {str(c): c for c in CARDS}

SUIT_MASK = tuple(((1 << 13) - 1) << (13 * s) for s in range(4))
SPADE_MASK = SUIT_MASK[SPADES]
# ABOVE[i]: the cards of i's suit that rank strictly above card i.
ABOVE = tuple(SUIT_MASK[i // 13] & ~((1 << (i + 1)) - 1) for i in range(52))
SUIT_OF = tuple(i // 13 for i in range(52))


def parse_card(text: object) -> Card:
    """Parse the two-character notation (``AS``, ``TD``, ``2C``); anything else (any other
    text, or not text at all, e.g. a bot's malformed reply) is refused."""
    card = _BY_TEXT.get(text) if isinstance(text, str) else None
    if card is None:
        raise ValueError(
            f"not a card: {text!r} (expected rank 2-9/T/J/Q/K/A then suit S/H/D/C, e.g. 'AS')"
        )
    return card


def parse_cards(text: str | Iterable[str]) -> list[Card]:
    """Parse space-separated card text or an iterable of card strings."""
    items = text.split() if isinstance(text, str) else list(text)
    try:
        return [_BY_TEXT[t] for t in items]
    except (KeyError, TypeError):
        return [parse_card(t) for t in items]  # raises, naming the bad text


def mask_of(cards: Iterable[int]) -> int:
    mask = 0
    for c in cards:
        mask |= 1 << c
    return mask


def cards_of(mask: int) -> list[Card]:
    """The cards of a mask, lowest index first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(CARDS[low.bit_length() - 1])
        mask ^= low
    return out


def format_cards(cards: Iterable[int]) -> str:
    return " ".join(str(CARDS[c]) for c in cards)
