"""The base class an author subclasses."""

from __future__ import annotations

import random

from arena.game import Card, Observation
from arena.players.player import Event


class Bot:
    """Override ``call`` and ``play``; the rest is optional.

    ``time_left_ms`` and ``decision_ms`` hold the clock of the current decision and
    ``game`` the game number within the match (the seat may change between games).
    ``match_id`` is the id the platform sent in ``Hello``, and ``rng`` a ``random.Random``
    seeded from it: draw every random choice from ``rng`` and a replayed match (``arena play
    --seed``, ``arena demo --seed``) gives the same choices.
    """

    name = "python-bot"
    version = "0.1.0"

    def __init__(self) -> None:
        self.time_left_ms = 0
        self.decision_ms = 0
        self.game = 0
        self.match_id = ""
        self.rng = random.Random()

    def call(self, obs: Observation) -> int:
        """How many tricks to call; any of ``obs.legal_calls``."""
        raise NotImplementedError

    def play(self, obs: Observation) -> Card | str:
        """The card to play; any of ``obs.legal_cards`` (a Card or its text, e.g. "AS")."""
        raise NotImplementedError

    def on_event(self, event: Event) -> None:
        """End of a trick, deal, game or match; ignore it if you like."""
