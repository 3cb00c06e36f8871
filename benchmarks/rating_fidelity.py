"""Does ``arena.ratings.fit`` recover the true order of 8 close bots from 400 games?

Eight synthetic bots have true mean points per deal 0, g, 2g, …, 7g for a
neighbour gap g.  Each game seats 4 of them at random.  Assumption (until real
engine games are plugged in): a bot's game total is 5 deals × its mean + normal
noise with 3.0 points SD per deal (≈ 6.7 per game), rounded to 0.1 — a typical
spread of Callbreak deal scores (bids of 1–8 won or lost).

For every gap, over many seeds, it prints the mean Kendall τ between fitted and
true order and the coverage of the 95 % intervals of the true (population
Bradley–Terry) Elo, and says whether the targets (τ ≥ 0.95, coverage 93–97 %)
are met.  ``evaluate`` takes the game simulator as a parameter, so
``simulate_games`` can later be replaced by engine games between heuristic bots
of increasing randomness (pass ``true_elo=None`` when only the order is known).

``--engine`` replaces the synthetic points by real games, played as the platform plays them
(``benchmarks/engine_pool.py``): eight house heuristic bots with increasing noise (a
uniformly random move instead of its own with probability p) meet in duplicate matches (the
same five-deal pagat game four times, the bots rotated one seat each game), 100 matches =
400 games per tournament, the match as the group. Their true order is the noise order; the
truth for interval coverage is each model's own fit on a large reference sample of such
matches. Both rating models are fitted on the same games and printed side by side. Then the
number of matches until the top 3 are separated (neighbour 95 % intervals disjoint), round
robin against adaptive extra matches (``arena.tournaments.adaptive``), on the same seeds.

Usage: ``python benchmarks/rating_fidelity.py [--quick] [--engine]``.
"""

import os
import sys
from pathlib import Path

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the synthetic games

import argparse  # noqa: E402
import itertools  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable, Hashable, Sequence  # noqa: E402
from dataclasses import dataclass  # noqa: E402

import numpy as np  # noqa: E402

from arena.ratings import fit  # noqa: E402
from arena.tournaments.adaptive import extra_tables, separated_top  # noqa: E402
from benchmarks.engine_pool import NOISES, ROTATIONS, play_matches, ranked, round_robin  # noqa: E402
from tests.ratings.synthetic import (  # noqa: E402
    covered,
    fitted_elo,
    kendall_tau,
    points_games,
    population_elo,
    random_tables,
)

N_BOTS, N_GAMES, DEALS, SD_PER_DEAL = 8, 400, 5, 3.0
TAU_TARGET, COVERAGE_RANGE = 0.95, (0.93, 0.97)

Games = tuple[list[dict[int, float]], Sequence[Hashable] | None]
Simulator = Callable[[np.random.Generator, int], Games]


def simulate_games(rng: np.random.Generator, n_games: int, gap: float) -> Games:
    """Synthetic games: bot i's mean is i·gap points per deal; no groups."""
    mean_per_deal = gap * np.arange(N_BOTS)
    tables = random_tables(rng, N_BOTS, n_games)
    return points_games(rng, mean_per_deal, tables, DEALS, SD_PER_DEAL), None


@dataclass(frozen=True)
class Fidelity:
    mean_tau: float
    coverage: dict[str, float]  # interval method → fraction covered (empty without truth)


def evaluate(
    simulate: Simulator,
    true_order: np.ndarray,
    true_elo: np.ndarray | None,
    n_games: int,
    seeds: range,
    methods: Sequence[str] = ("sandwich",),
) -> Fidelity:
    """Mean τ and interval coverage of the Bradley–Terry fit (whose population Elo is the
    synthetic truth) over ``seeds`` runs of ``simulate``."""
    taus, hits, total = [], dict.fromkeys(methods, 0), 0
    for seed in seeds:
        games, groups = simulate(np.random.default_rng(seed), n_games)
        for method in methods:
            ratings = fit(games, groups, model="bradley-terry", intervals=method, seed=seed)
            if true_elo is not None:
                hits[method] += covered(ratings, true_elo)
        taus.append(kendall_tau(fitted_elo(ratings, len(true_order)), true_order))
        total += len(true_order)
    coverage = {m: h / total for m, h in hits.items()} if true_elo is not None else {}
    return Fidelity(float(np.mean(taus)), coverage)


def _verdict(result: Fidelity) -> str:
    ok_tau = result.mean_tau >= TAU_TARGET
    ok_cov = all(COVERAGE_RANGE[0] <= c <= COVERAGE_RANGE[1] for c in result.coverage.values())
    return "targets met" if ok_tau and ok_cov else "TARGET MISSED" + ("" if ok_tau else " (tau)")


def gap_table(gaps: Sequence[float], seeds: range, methods: Sequence[str]) -> list[float]:
    """Print τ and coverage per gap at N_GAMES; return the gaps meeting the τ target."""
    print(f"{N_BOTS} bots, {N_GAMES} four-player games, {len(seeds)} seeds per gap")
    print(f"{'gap/deal':>8} {'mean tau':>9}  coverage of 95% CI")
    good = []
    for gap in gaps:
        truth = population_elo(gap * np.arange(N_BOTS), DEALS, SD_PER_DEAL)
        result = evaluate(
            lambda rng, n, g=gap: simulate_games(rng, n, g), truth, truth, N_GAMES, seeds, methods
        )
        cov = ", ".join(f"{m} {100 * c:.1f}%" for m, c in result.coverage.items())
        print(f"{gap:8.2f} {result.mean_tau:9.3f}  {cov:<36} {_verdict(result)}")
        if result.mean_tau >= TAU_TARGET:
            good.append(gap)
    return good


def games_needed(gap: float, sizes: Sequence[int], seeds: range) -> None:
    """Print τ for growing numbers of games at a small gap."""
    truth = population_elo(gap * np.arange(N_BOTS), DEALS, SD_PER_DEAL)
    print(f"gap {gap} points/deal with more games ({len(seeds)} seeds):")
    for n_games in sizes:
        result = evaluate(lambda rng, n: simulate_games(rng, n, gap), truth, truth, n_games, seeds)
        print(f"  {n_games:6,} games: mean tau {result.mean_tau:.3f}")


MATCHES, TOP = 100, 3
MODELS = ("margin", "bradley-terry")


def engine_matches(rng: np.random.Generator, n_matches: int) -> Games:
    """Duplicate matches among the eight noisy heuristic bots, random tables of 4."""
    return play_matches(rng, random_tables(rng, len(NOISES), n_matches).tolist())


def engine_fidelity(quick: bool, seeds: int | None, reference: int | None) -> None:
    """Both models on the same games: mean tau and interval coverage, side by side."""
    reference = reference or (500 if quick else 7_500)
    print(f"engine games: heuristic bots with noise {NOISES}")
    ref_games, ref_groups = engine_matches(np.random.default_rng(10_000), reference)
    per_deal = [np.mean([g[b] for g in ref_games if b in g]) / DEALS for b in range(len(NOISES))]
    print(
        "mean points per deal in the reference sample: " + " ".join(f"{x:+.2f}" for x in per_deal)
    )
    print("neighbour gaps: " + " ".join(f"{a - b:.2f}" for a, b in itertools.pairwise(per_deal)))
    order = -np.arange(len(NOISES), dtype=float)  # less noise, stronger
    truth = {
        m: fitted_elo(fit(ref_games, ref_groups, model=m, intervals="none"), len(NOISES))
        for m in MODELS
    }
    seeds = range(seeds or (10 if quick else 100))
    taus: dict[str, list[float]] = {m: [] for m in MODELS}
    hits = dict.fromkeys(MODELS, 0)
    for seed in seeds:
        games, groups = engine_matches(np.random.default_rng(seed), MATCHES)
        for m in MODELS:
            ratings = fit(games, groups, model=m)
            taus[m].append(kendall_tau(fitted_elo(ratings, len(NOISES)), order))
            hits[m] += covered(ratings, truth[m])
    print(
        f"{MATCHES} duplicate matches x {ROTATIONS} rotations = {MATCHES * ROTATIONS} games, "
        f"match = group, {len(seeds)} tournaments; truth for coverage: each model's fit on "
        f"{reference:,} matches"
    )
    print(f"{'model':<14} {'mean tau':>9} {'coverage':>9}  target tau >= 0.98, coverage 93-97%")
    for m in MODELS:
        tau, cov = float(np.mean(taus[m])), hits[m] / (len(seeds) * len(NOISES))
        ok = tau >= 0.98 and 0.93 <= cov <= 0.97
        print(f"{m:<14} {tau:9.3f} {100 * cov:8.1f}%  {'targets met' if ok else 'TARGET MISSED'}")


def matches_to_separate(seed: int, adaptive: bool, base: int, batch: int, cap: int) -> tuple:
    """Matches until the top TOP bots' neighbour intervals are disjoint (margin model),
    checked every ``batch`` matches; and whether that top is the true one in order.

    Round robin: the platform's schedule of every 4-subset of the 8 bots, again and again
    (a fresh seating each cycle). Adaptive: the first ``base`` tables of that round robin,
    then ``batch`` extra tables at a time from ``extra_tables`` on the current standings
    (``top=TOP``, as ``arena tournament extend --top 3`` does).
    """
    rng = np.random.default_rng(20_000 + seed)
    names = [str(b) for b in range(len(NOISES))]

    rr = list(itertools.islice(round_robin(len(NOISES), seed), cap + base + batch))
    played: list[list[int]] = []
    games: list[dict[int, float]] = []
    groups: list[int] = []
    while len(played) < cap:
        if adaptive and len(played) >= base:
            seats = {n: [0] * 4 for n in names}
            for t in played:
                for i, b in enumerate(t):
                    seats[str(b)][i] += 1
            standings = ranked(fit(games, groups))
            new = [
                [int(x) for x in t] for t in extra_tables(standings, batch, seats, ROTATIONS, TOP)
            ]
        else:
            step = base if not played else batch
            new = rr[len(played) : len(played) + step]
        more, more_groups = play_matches(rng, new, len(played))
        played += new
        games += more
        groups += more_groups
        ranking = sorted(ranked(fit(games, groups)), key=lambda r: -r.elo)
        if separated_top(ranking, TOP):
            right = [r.name for r in ranking[:TOP]] == names[:TOP]
            return len(played), right
    return cap, False


def separation(quick: bool, seeds: int | None) -> None:
    """Matches to separate the top 3: adaptive against round robin, same seeds."""
    seeds = range(seeds or (3 if quick else 10))
    base, batch, cap = 28, 4, 2_000
    print(
        f"matches until the top {TOP} of the {len(NOISES)} bots are separated (neighbour 95% "
        f"intervals disjoint, margin model), checked every {batch} matches, {len(seeds)} seeds:"
    )
    counts: dict[str, list[int]] = {"round robin": [], "adaptive": []}
    right = dict.fromkeys(counts, 0)
    for seed in seeds:
        for label in counts:
            n, ok = matches_to_separate(seed, label == "adaptive", base, batch, cap)
            counts[label].append(n)
            right[label] += ok
    for label, ns in counts.items():
        extra = " (round robin base, then extra_tables)" if label == "adaptive" else ""
        print(
            f"  {label:<12} mean {np.mean(ns):6.0f}  median {np.median(ns):6.0f}  "
            f"per seed {ns}  top {TOP} in true order {right[label]}/{len(seeds)}{extra}"
        )
    ratio = np.mean(counts["adaptive"]) / np.mean(counts["round robin"])
    print(f"  adaptive / round robin: {ratio:.2f} of the matches (base {base} matches)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer seeds")
    parser.add_argument("--engine", action="store_true", help="real engine games instead")
    parser.add_argument("--seeds", type=int, help="with --engine: tournaments to fit")
    parser.add_argument("--reference", type=int, help="with --engine: matches behind the truth")
    parser.add_argument("--separation-seeds", type=int, help="with --engine: seeds per schedule")
    args = parser.parse_args()
    started = time.perf_counter()
    if args.engine:
        engine_fidelity(args.quick, args.seeds, args.reference)
        separation(args.quick, args.separation_seeds)
        print(f"total benchmark time {time.perf_counter() - started:.0f} s")
        return
    seeds = range(60 if args.quick else 300)
    good = gap_table((0.1, 0.2, 0.3, 0.4, 0.5), seeds, ("sandwich", "bootstrap"))
    if good:
        print(f"tau target {TAU_TARGET} reached at {N_GAMES} games for gaps >= {min(good)}")
    if 0.1 not in good:
        print(f"tau target NOT reachable with a 0.1 points/deal gap at {N_GAMES} games")
        games_needed(0.1, (400, 1_000, 2_000, 4_000), range(30 if args.quick else 100))
    print(f"total benchmark time {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
