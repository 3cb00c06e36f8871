"""House bots: decision speed, and the heuristic bot's strength against random bots and itself.

Speed is timed on observations recorded from real games, so only the bots' own work is counted
(target: <= ~50 µs per decision on average). Strength is the heuristic bot's mean points per
deal and call success rate over N seeded games, rotating it through the seats; the noise
ladder shows the strength order the rating-fidelity benchmark relies on.

Run: python benchmarks/house_bots.py [--games N] [--quick]
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from arena.game import BHOOS, CALLING, PAGAT, Game, Observation, Ruleset, derive_seed
from arena.house import BotStrategy, HeuristicBot, RandomBot

Lineup = Callable[[int], list[tuple[str, BotStrategy]]]


def play_game(rules: Ruleset, seed: int, bots: list[BotStrategy], seen=None) -> Game:
    """One game through the state machine; appends every observation to ``seen`` if given."""
    game = Game(rules, seed, first_dealer=seed % 4)
    while not game.over:
        seat = game.deal.to_act
        obs = game.observation(seat)
        if seen is not None:
            seen.append(obs)
        if obs.phase == CALLING:
            game.call(seat, bots[seat].call(obs))
        else:
            game.play(seat, bots[seat].play(obs))
    return game


def speed(make: Callable[[], BotStrategy], observations: list[Observation]) -> float:
    """Mean microseconds per decision of a fresh bot over the recorded observations."""
    bot = make()
    start = time.perf_counter()
    for obs in observations:
        if obs.phase == CALLING:
            bot.call(obs)
        else:
            bot.play(obs)
    return (time.perf_counter() - start) / len(observations) * 1e6


def by_role(rules: Ruleset, n_games: int, lineup: Lineup) -> dict[str, tuple[float, float]]:
    """Per role: mean points per deal and call success rate over ``n_games`` games."""
    points: dict[str, int] = {}
    made: dict[str, int] = {}
    deals: dict[str, int] = {}
    for i in range(n_games):
        seats = lineup(i)
        game = play_game(rules, derive_seed("house-bench", i), [b for _, b in seats])
        for deal in game.finished:
            for (role, _), pts in zip(seats, deal.points(), strict=True):
                points[role] = points.get(role, 0) + pts
                made[role] = made.get(role, 0) + (pts > 0)
                deals[role] = deals.get(role, 0) + 1
    return {r: (points[r] / 10 / deals[r], made[r] / deals[r]) for r in points}


def vs_random(i: int) -> list[tuple[str, BotStrategy]]:
    seats: list[tuple[str, BotStrategy]] = [("random", RandomBot(4 * i + k)) for k in range(4)]
    seats[i % 4] = ("heuristic", HeuristicBot(4 * i + i % 4))
    return seats


def vs_self(i: int) -> list[tuple[str, BotStrategy]]:
    return [("heuristic", HeuristicBot(4 * i + k)) for k in range(4)]


def ladder(noises: tuple[float, ...]) -> Lineup:
    """Tables of four distinct noise levels, drawn from ``noises`` by a seeded sample."""

    def lineup(i: int) -> list[tuple[str, BotStrategy]]:
        picked = random.Random(i).sample(noises, 4)
        return [(f"noise {p:.2f}", HeuristicBot(4 * i + k, noise=p)) for k, p in enumerate(picked)]

    return lineup


def report(title: str, results: dict[str, tuple[float, float]]) -> None:
    print(f"  {title}")
    for role, (pts, ok) in sorted(results.items()):
        print(f"    {role:<12} {pts:+6.2f} points/deal   {100 * ok:5.1f}% of calls made")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400, help="games per strength figure")
    parser.add_argument("--quick", action="store_true", help="100 games, smaller speed sample")
    args = parser.parse_args()
    n_games = 100 if args.quick else args.games

    print("speed (mean µs per decision, bots' own time on recorded observations):")
    for rules in (PAGAT, BHOOS):
        seen: list[Observation] = []
        for i in range(20 if args.quick else 100):
            play_game(rules, derive_seed("house-speed", i), [b for _, b in vs_self(i)], seen)
        for name, make in (
            ("random", lambda: RandomBot(1)),
            ("heuristic", lambda: HeuristicBot(1)),
            ("heuristic noise 0.3", lambda: HeuristicBot(1, noise=0.3)),
        ):
            micros = speed(make, seen)
            print(f"  {rules.name:<6} {name:<20} {micros:6.1f} µs  ({len(seen):,} decisions)")

    print(f"\nstrength over {n_games} seeded games per line (heuristic rotated through the seats):")
    for rules in (PAGAT, BHOOS):
        report(f"{rules.name}: 1 heuristic vs 3 random", by_role(rules, n_games, vs_random))
        report(f"{rules.name}: 4 heuristic", by_role(rules, n_games, vs_self))
        noises = (0.0, 0.1, 0.2, 0.35, 0.5, 1.0)
        report(f"{rules.name}: noise ladder, mixed tables", by_role(rules, n_games, ladder(noises)))


if __name__ == "__main__":
    main()
