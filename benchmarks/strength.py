"""The master bot's strength: a duplicate comparison against the heuristic, seat by seat.

Each game is played twice on the same seeded deals with the same three opponents: once with
the master in the test seat, once with the heuristic there. The figure is the mean difference
of the test seat's points per deal (master minus heuristic) with a 95% CI clustered by game
(the seat rotates with the game). Opponents are three heuristics, or with ``--vs-masters``
three masters. The master runs under the default clock as the referee keeps it (1000 ms per
decision plus a 10 s bank per game, overruns taken from the bank), in this process, so the
decision times are its own work (each worker loads the compiled kernels first, as the
sample bot does before it serves); p50/p99 are over every master decision in the test seat.

``--sighted calls|cards|both`` is a measurement, not a player: the master in the test seat is
given the true hands in place of its sampled deals for its calls, its cards or both. The
figure is then the most a better reading of the other seats could give this search, because
the search itself is unchanged.

Run: python benchmarks/strength.py [--games N] [--rules pagat,bhoos] [--vs-masters] [--jobs J]
       [--sighted calls|cards|both]
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from arena.game import CALLING, PLAYING, Game, Observation, derive_seed, get_ruleset
from arena.house import HeuristicBot
from arena.house.master import MasterBot
from arena.house.master.cache import warm
from arena.house.master.inference import Inference
from arena.referee.match import Clock

CLOCK = Clock()
PHASES = {"calls": (CALLING,), "cards": (PLAYING,), "both": (CALLING, PLAYING)}


class SightedMaster(MasterBot):
    """The master searching the true hands (``hands``, set before each decision) instead of
    sampled deals in the given phases: an upper bound for the benchmark, never a player."""

    def __init__(self, phases: tuple[str, ...], **kwargs) -> None:
        super().__init__(**kwargs)
        self.phases = phases
        self.hands: list[int] = []

    def _reader(self, obs: Observation, know: Inference) -> Callable[[int, int], np.ndarray]:
        if obs.phase not in self.phases:
            return super()._reader(obs, know)
        true = np.array(self.hands, np.int64)
        return lambda n, seed: np.tile(true, (n, 1))


def play(
    rules_name: str,
    game_no: int,
    master_seat: bool,
    vs_masters: bool,
    share: float,
    sighted: str = "",
):
    """One game; returns the test seat's points per deal (tenths) and its decision times."""
    rules = get_ruleset(rules_name)
    seed = derive_seed("strength", rules_name, game_no)
    seat = game_no % 4

    def bot(k: int, master: bool) -> MasterBot | HeuristicBot:
        return (
            MasterBot(seed=4 * game_no + k, share=share)
            if master
            else HeuristicBot(4 * game_no + k)
        )

    bots = [bot(k, vs_masters) for k in range(4)]
    bots[seat] = (
        SightedMaster(PHASES[sighted], seed=4 * game_no + seat, share=share)
        if master_seat and sighted
        else bot(seat, master_seat)
    )
    banks = [float(CLOCK.bank_ms)] * 4
    times: list[float] = []
    game = Game(rules, seed, first_dealer=game_no % 4)
    while not game.over:
        s = game.deal.to_act
        obs = game.observation(s)
        bot = bots[s]
        if isinstance(bot, SightedMaster):
            bot.hands = list(game.deal.hands)
        if isinstance(bot, MasterBot):
            bot.set_clock(int(CLOCK.decision_ms + banks[s]), int(banks[s]))
        t0 = time.perf_counter()
        move = bot.call(obs) if obs.phase == CALLING else bot.play(obs)
        wall_ms = (time.perf_counter() - t0) * 1000
        banks[s] = max(0.0, banks[s] - max(0.0, wall_ms - CLOCK.decision_ms))
        if s == seat and master_seat:
            times.append(wall_ms)
        if obs.phase == CALLING:
            game.call(s, move)
        else:
            game.play(s, move)
    return [d.points()[seat] for d in game.finished], times


def pair(args: tuple[str, int, bool, float, str]) -> tuple[list[int], list[float]]:
    """Per deal of one game: master's points minus the heuristic's, in the same seat."""
    rules_name, game_no, vs_masters, share, sighted = args
    master, times = play(rules_name, game_no, True, vs_masters, share, sighted)
    heuristic, _ = play(rules_name, game_no, False, vs_masters, share)
    return [m - h for m, h in zip(master, heuristic, strict=True)], times


def summary(per_game: list[list[int]]) -> tuple[float, float, int]:
    """Mean difference per deal in points, the 95% CI half-width (clustered by game), deals."""
    deals = sum(len(g) for g in per_game)
    mean = sum(sum(g) for g in per_game) / deals
    k = len(per_game[0])
    residuals = [sum(g) - mean * len(g) for g in per_game]
    var = sum(r * r for r in residuals) / (len(per_game) - 1) / len(per_game) / k**2
    return mean / 10, 1.96 * math.sqrt(var) / 10, deals


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40, help="games (5 deals) per ruleset")
    parser.add_argument("--rules", default="pagat,bhoos", help="comma-separated presets")
    parser.add_argument("--vs-masters", action="store_true", help="opponents are masters")
    parser.add_argument("--share", type=float, default=0.5, help="master's share of the clock")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (at most 2 here)")
    parser.add_argument(
        "--sighted",
        choices=list(PHASES),
        default="",
        help="give the master the true hands for its calls, cards or both (an upper bound)",
    )
    args = parser.parse_args()
    if args.games < 2:
        parser.error("--games must be at least 2 (the CI is clustered by game)")
    opponents = "3 masters" if args.vs_masters else "3 heuristics"
    shown = "calls and cards" if args.sighted == "both" else args.sighted
    sighted = f", master given the true hands for its {shown}" if args.sighted else ""
    print(f"duplicate: master vs heuristic in one seat against {opponents}, default clock{sighted}")
    for rules_name in args.rules.split(","):
        work = [
            (rules_name, g, args.vs_masters, args.share, args.sighted) for g in range(args.games)
        ]
        start = time.perf_counter()
        with ProcessPoolExecutor(max_workers=args.jobs, initializer=warm) as pool:
            results = list(pool.map(pair, work))
        per_game = [r[0] for r in results]
        times = [t for r in results for t in r[1]]
        mean, half, deals = summary(per_game)
        print(
            f"  {rules_name:<6} {mean:+.2f} points/deal  95% CI [{mean - half:+.2f}, "
            f"{mean + half:+.2f}]  over {deals} deals ({args.games} games)  "
            f"decision p50 {statistics.median(times):.0f} ms  p99 {percentile(times, 0.99):.0f} ms"
            f"  max {max(times):.0f} ms  ({time.perf_counter() - start:.0f} s)",
            flush=True,
        )


if __name__ == "__main__":
    main()
