"""The interface every in-process bot implements, and the seeded base of the house bots."""

from __future__ import annotations

import random
from abc import ABC, abstractmethod

from arena.game import Card, Observation


class BotStrategy(ABC):
    """A bot as the referee sees it: asked for a call, then for cards, one observation at a time.

    Implementations must be pure functions of their seed and the observations they are shown
    (no I/O, no clock), so that a seeded match replays identically.
    """

    @abstractmethod
    def call(self, obs: Observation) -> int:
        """The number of tricks to call; must be one of ``obs.legal_calls``."""

    @abstractmethod
    def play(self, obs: Observation) -> Card:
        """The card to play; must be one of ``obs.legal_cards``."""

    def reset(self, seed: int | None = None) -> None:  # noqa: B027 - optional hook
        """Forget per-game state before a new game; stateless bots need not override."""


class HouseBot(BotStrategy):
    """A built-in bot. Its only randomness is a private RNG, so the seed fixes every choice."""

    name = "house"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self._rng = random.Random(seed)

    def reset(self, seed: int | None = None) -> None:
        """Restart the RNG (from ``seed`` if given) so a replayed game gets the same moves."""
        if seed is not None:
            self.seed = seed
        self._rng.seed(self.seed)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(seed={self.seed})"


class RandomBot(HouseBot):
    """Uniformly random legal calls and cards: the floor of any strength scale."""

    name = "random"

    def call(self, obs: Observation) -> int:
        return self._rng.choice(obs.legal_calls)

    def play(self, obs: Observation) -> Card:
        return self._rng.choice(obs.legal_cards)
