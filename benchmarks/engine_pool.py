"""The engine pool shared by the rating benchmarks: house heuristic bots of known strength order.

Bot ``b`` is a :class:`arena.house.HeuristicBot` that plays a uniformly random legal move
instead of its own with probability ``noise_levels(n)[b]``, so less noise is stronger and the
true order is the index order. A match is played as the referee plays one (a duplicate
match: the same seeded five-deal pagat game four times, the bots rotated one seat each
game), in this process. ``benchmarks/rating_fidelity.py --engine`` and
``benchmarks/ladder.py`` play on it.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence

import numpy as np

from arena.game import PAGAT, Game
from arena.house import HeuristicBot
from arena.ratings import Rating
from arena.tournaments.adaptive import Ranked
from arena.tournaments.schedule import schedule

NOISES = (0.0, 0.04, 0.08, 0.12, 0.16, 0.2, 0.25, 0.3)  # the eight-bot pool
MORE_NOISE_STEP = 0.05  # pools beyond eight go on in these steps
ROTATIONS = 4  # games per duplicate match

Games = list[dict[int, float]]


def noise_levels(n: int) -> tuple[float, ...]:
    """The noise of each bot of an ``n``-bot pool: a prefix of one list, so a smaller pool's
    bots are the strongest of a larger one's."""
    if n < 1:
        raise ValueError(f"a pool needs at least one bot, not {n}")
    more = tuple(round(NOISES[-1] + MORE_NOISE_STEP * i, 3) for i in range(1, n - len(NOISES) + 1))
    return (NOISES + more)[:n]


def play_match(
    table: Sequence[int], seed: int, noises: Sequence[float] = NOISES
) -> list[dict[int, float]]:
    """One duplicate match as the referee plays it: the same seeded five-deal pagat game
    four times, entrant e in seat (e + g) % 4 in game g; fresh bots every game."""
    games = []
    for g in range(ROTATIONS):
        seat_of = [(e + g) % 4 for e in range(4)]
        bots = [HeuristicBot()] * 4
        for e, b in enumerate(table):
            bots[seat_of[e]] = HeuristicBot(seed=seed + 4 * g + e, noise=noises[b])
        game = Game(PAGAT, seed)
        while not game.over:
            seat = game.deal.to_act
            obs = game.observation(seat)
            if obs.phase == "calling":
                game.call(seat, bots[seat].call(obs))
            else:
                game.play(seat, bots[seat].play(obs))
        games.append({int(b): game.scores[seat_of[e]] / 10 for e, b in enumerate(table)})
    return games


def play_matches(
    rng: np.random.Generator,
    tables: Sequence[Sequence[int]],
    first: int = 0,
    noises: Sequence[float] = NOISES,
) -> tuple[Games, list[int]]:
    """Games and their match (the group, numbered from ``first``) of duplicate matches on
    ``tables``, one seed drawn from ``rng`` per match."""
    games: Games = []
    groups: list[int] = []
    for i, table in enumerate(tables):
        games += play_match(table, int(rng.integers(2**31)), noises)
        groups += [first + i] * ROTATIONS
    return games, groups


def round_robin(n: int, seed: int) -> Iterator[list[int]]:
    """The platform's round robin of bots 0..n-1 (every 4-subset up to 12 bots, a balanced
    design beyond), cycle after cycle, each cycle freshly seated: the tables, endlessly."""
    names = [str(b) for b in range(n)]
    for cycle in itertools.count():
        for t in schedule(names, 1_000 * seed + cycle):
            yield [int(x) for x in t.seats]


def ranked(ratings: Mapping[int, Rating]) -> list[Ranked]:
    """Fitted ratings as the matchmakers see them (names are the bots' indices as text)."""
    return [Ranked(str(b), r.elo, r.ci_low, r.ci_high, r.games) for b, r in ratings.items()]
