"""What one seat may know: its own hand and everything played in the open."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from arena.game.cards import Card
from arena.game.rules import Ruleset

# A deal's phase: calling, then playing, then over (``arena.game.deal`` names each).
Phase = Literal["calling", "playing", "over"]


@dataclass(frozen=True)
class Trick:
    """A trick: ``cards`` in play order from ``leader``; ``winner`` is None until complete."""

    leader: int
    cards: tuple[Card, ...]
    winner: int | None = None

    def seat_of(self, position: int) -> int:
        return (self.leader + position) % 4


@dataclass(frozen=True)
class Observation:
    """A seat's view of a deal. Scores are integer tenths, cumulative before this deal."""

    rules: Ruleset
    seat: int
    dealer: int
    deal: int
    phase: Phase
    hand: tuple[Card, ...]
    calls: tuple[int | None, ...]
    tricks: tuple[Trick, ...]
    current: Trick
    won: tuple[int, ...]
    scores: tuple[int, ...]
    to_act: int | None
    legal_cards: tuple[Card, ...]
    legal_calls: tuple[int, ...]
