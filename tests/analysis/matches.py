"""Small matches played by the real referee with in-process bots, for the analysis tests."""

from __future__ import annotations

from typing import Any

from arena.game import PAGAT
from arena.house.names import house_player
from arena.players.inprocess import InProcessPlayer
from arena.players.player import Player, Request
from arena.referee import MatchSpec, play_match

SAMPLES = 64  # two batches: the least an analysis takes, enough for these tests


class Recording(InProcessPlayer):
    """An in-process bot that keeps every request the referee sent it."""

    def __init__(self, strategy: Any, name: str) -> None:
        super().__init__(strategy, name)
        self.requests: list[Request] = []

    def decide(self, request: Request, timeout_s: float) -> Any:
        self.requests.append(request)
        return super().decide(request, timeout_s)


def heuristics(seed: int) -> list[Player]:
    return [house_player("heuristic", 4 * seed + k, f"heuristic-{k}") for k in range(4)]


def play(players: list[Any], seed: int, games: int = 1, deals: int = 1, **kw: Any) -> dict:
    """The record of a match of ``games`` games of ``deals`` deals (pagat) among ``players``."""
    spec = MatchSpec(f"analysis-{seed}", PAGAT.with_(deals_per_game=deals), seed, games, **kw)
    return play_match(spec, players).record
