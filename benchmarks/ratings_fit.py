"""Speed and interval coverage of the Bradley–Terry fit (and the margin model's speed).

Prints:
1. seconds to fit 100,000 four-player games among 50 bots, for the point
   estimate alone and with each interval method (best of 3, one core), and for
   the margin model (default) with its sandwich;
2. the baseline: a naive 200-sample bootstrap that resamples groups and refits
   the games from scratch, timed on 10,000 games and extrapolated linearly;
3. 95 % CI coverage over many seeds on a moderate problem (20 bots, 1,000
   games; Gumbel noise so Bradley–Terry holds exactly and the true Elo is
   known), per game and with 200 five-game matches as groups.

Usage: ``python benchmarks/ratings_fit.py [--quick]`` (``--quick``: fewer
repeats and seeds, ~15 s).  BLAS threads are pinned to one.
"""

import os
import sys
from pathlib import Path

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the synthetic games

import argparse  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from arena.ratings import bradley_terry as fit  # noqa: E402
from arena.ratings import margin  # noqa: E402
from tests.ratings.synthetic import (  # noqa: E402
    covered,
    elo_from_strength,
    gumbel_games,
    points_games,
    random_tables,
)

METHODS = ("sandwich", "bootstrap")


def _best_time(func, repeats: int) -> tuple[float, float]:
    """Best wall-clock and CPU seconds; CPU time is robust to a busy machine."""
    wall = cpu = float("inf")
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        func()
        wall = min(wall, time.perf_counter() - start)
        cpu = min(cpu, time.process_time() - start_cpu)
    return wall, cpu


def big_games(n_games: int, n_bots: int = 50, seed: int = 0) -> list[dict[int, float]]:
    """Callbreak-like games: 50 bots 0.05 points/deal apart, random tables of 4."""
    rng = np.random.default_rng(seed)
    mean_per_deal = np.linspace(0.0, 0.05 * (n_bots - 1), n_bots)
    return points_games(rng, mean_per_deal, random_tables(rng, n_bots, n_games))


def time_fit(repeats: int) -> None:
    games = big_games(100_000)
    print("1. fit on 100,000 four-player games, 50 bots (best of", repeats, "runs)")
    for method in ("none", *METHODS):
        wall, cpu = _best_time(lambda m=method: fit(games, intervals=m), repeats)
        print(f"   intervals={method:<10} {wall:6.2f} s wall, {cpu:6.2f} s CPU")
    wall, cpu = _best_time(lambda: margin(games), repeats)
    print(f"   margin model, sandwich {wall:6.2f} s wall, {cpu:6.2f} s CPU")


def naive_bootstrap(games: list[dict[int, float]], n_boot: int, seed: int = 0) -> None:
    """Reference method: resample whole games and refit each resample from scratch."""
    rng = np.random.default_rng(seed)
    for _ in range(n_boot):
        pick = rng.integers(0, len(games), size=len(games))
        fit([games[i] for i in pick], groups=pick.tolist(), intervals="none")


def time_naive(n_games: int) -> None:
    games = big_games(n_games)
    wall, cpu = _best_time(lambda: naive_bootstrap(games, 200), 1)
    scale = 100_000 / n_games
    print(f"2. naive 200-sample full bootstrap on {n_games:,} games:", end=" ")
    print(f"{wall:.1f} s wall, {cpu:.1f} s CPU")
    print(f"   estimated for 100,000 games (linear): {wall * scale:.0f} s wall,", end=" ")
    print(f"{cpu * scale:.0f} s CPU")


def coverage(n_seeds: int, match_size: int) -> dict[str, float]:
    """Fraction of (seed, bot) whose true Elo lies in the 95 % interval."""
    hits = dict.fromkeys(METHODS, 0)
    total = 0
    n_bots, n_games = 20, 1_000
    for seed in range(n_seeds):
        rng = np.random.default_rng(1_000 + seed)
        strength = rng.normal(scale=0.5, size=n_bots)
        tables = np.repeat(random_tables(rng, n_bots, n_games // match_size), match_size, axis=0)
        games = gumbel_games(rng, strength, tables)
        groups = (np.arange(n_games) // match_size).tolist() if match_size > 1 else None
        truth = elo_from_strength(strength)
        for method in METHODS:
            hits[method] += covered(fit(games, groups, intervals=method, seed=seed), truth)
        total += n_bots
    return {m: h / total for m, h in hits.items()}


def report_coverage(n_seeds: int) -> None:
    print(f"3. 95% CI coverage, 20 bots, 1,000 games, {n_seeds} seeds (target 93-97%)")
    for label, size in (("each game its own group", 1), ("200 matches x 5 games", 5)):
        result = coverage(n_seeds, size)
        figures = ", ".join(f"{m} {100 * c:.1f}%" for m, c in result.items())
        print(f"   {label:<24} {figures}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats and seeds")
    args = parser.parse_args()
    started = time.perf_counter()
    time_fit(1 if args.quick else 3)
    time_naive(2_000 if args.quick else 10_000)
    report_coverage(40 if args.quick else 200)
    print(f"total benchmark time {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
