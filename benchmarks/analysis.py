"""Match analysis (``arena.analysis``): how much each house bot loses per decision in the
master's eyes, what an analysis costs, and how stable its labels are.

The same duplicate matches (4 games, the seats rotating; ``--deals`` deals a game, pagat)
are played in process by a table of house bots: random, heuristic, master, heuristic. Every
entrant is then analysed at the default sample budget. Printed per bot:

- the mean loss per decision with a choice (95% interval: 1.96 standard errors over the
  decisions), for calls and for cards, the loss quantiles, and the share of decisions at or
  above each loss level: the distributions the labels' thresholds were chosen from;
- the labels given, as counts and per 100 decisions;
- the analysis time per decision and per match entrant (scaled to the default 20 deals);
- label agreement: the random and heuristic entrants analysed again from another seed, the
  share of decisions whose label is the same both times, and among the decisions labelled
  in either run.

``--budgets 256,512,1024`` measures instead, on the random and heuristic entrants of 4
matches each analysed from two seeds, the time and the label agreement of each sample budget
(how the default was chosen).

Run: python benchmarks/analysis.py [--matches N] [--deals 2] [--jobs 2] [--quick]
       [--budgets 256,512,1024,2048]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from arena.analysis import DEFAULT_SAMPLES, LABELS, Analysis, analyse
from arena.game import PAGAT, derive_seed
from arena.house.master.cache import warm
from arena.house.names import house_player
from arena.referee import MatchSpec, play_match

TABLE = ("random", "heuristic", "master", "heuristic")
LEVELS = (0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0)  # loss levels (points) shown as shares
QUANTILES = (0.5, 0.75, 0.9, 0.95, 0.99)
DEAL_SCALE = 5  # the default deals per game, to scale an entrant's time to a full match


def play(index: int, deals: int) -> dict[str, Any]:
    """Match ``index``: the table of house bots over one duplicate set; its record."""
    players = [house_player(kind, 10 * index + e, f"{kind}-{e}") for e, kind in enumerate(TABLE)]
    spec = MatchSpec(
        f"analysis-{index}", PAGAT.with_(deals_per_game=deals), derive_seed("bench", index)
    )
    return play_match(spec, players).record


def judge(record: dict[str, Any], entrant: int, samples: int, seed: int) -> tuple[dict, float]:
    """One entrant's analysis (as a dict) and the seconds it took."""
    start = time.perf_counter()
    found = analyse(record, entrant, samples, seed)
    return found.to_dict(), time.perf_counter() - start


def run_all(pool: ProcessPoolExecutor, jobs: list[tuple]) -> list[tuple[Analysis, float]]:
    futures = [pool.submit(judge, *job) for job in jobs]
    return [(Analysis.from_dict(d), secs) for d, secs in (f.result() for f in futures)]


def mean_ci(xs: list[float]) -> str:
    if len(xs) < 2:
        return "n/a"
    mean, se = statistics.fmean(xs), statistics.stdev(xs) / len(xs) ** 0.5
    return f"{mean:.3f} ± {1.96 * se:.3f}"


def quantiles(xs: list[float]) -> str:
    ordered = sorted(xs)
    return " ".join(f"{ordered[min(len(xs) - 1, int(q * len(xs)))]:.2f}" for q in QUANTILES)


def losses(results: list[Analysis], kind: str | None = None) -> list[float]:
    return [
        v.loss for a in results for v in a.verdicts if v.counts and (kind is None or v.kind == kind)
    ]


def report_losses(by_bot: dict[str, list[Analysis]]) -> None:
    print("\nmean loss per decision with a choice (points, 95% interval)")
    print(f"{'bot':<10} {'decisions':>9}  {'all':>15}  {'calls':>15}  {'cards':>15}")
    for bot, results in by_bot.items():
        row = [mean_ci(losses(results, kind)) for kind in (None, "call", "play")]
        print(f"{bot:<10} {len(losses(results)):>9}  {row[0]:>15}  {row[1]:>15}  {row[2]:>15}")
    print(f"\nloss quantiles {' '.join(f'p{round(q * 100)}' for q in QUANTILES)}")
    for bot, results in by_bot.items():
        print(f"{bot:<10} {quantiles(losses(results))}")
    print("\nshare of decisions (%) with loss >= " + " ".join(f"{x:>5}" for x in LEVELS))
    for bot, results in by_bot.items():
        xs = losses(results)
        shares = [100 * sum(x >= level for x in xs) / len(xs) for level in LEVELS]
        print(f"{bot:<10} {'':>24}" + " ".join(f"{s:5.1f}" for s in shares))
    print("\nlabels: count (per 100 decisions)")
    for bot, results in by_bot.items():
        n = len(losses(results))
        counts = [sum(a.summary()["labels"][name] for a in results) for name in LABELS]
        text = "  ".join(
            f"{name} {c} ({100 * c / n:.1f})" for name, c in zip(LABELS, counts, strict=True)
        )
        print(f"{bot:<10} {text}")


def agreement(first: list[Analysis], second: list[Analysis]) -> tuple[float, float, int, int]:
    """Share of decisions with the same label in both runs; the same among those labelled
    in either run, and how many there were; the decisions compared."""
    pairs = [
        (a.label, b.label)
        for x, y in zip(first, second, strict=True)
        for a, b in zip(x.verdicts, y.verdicts, strict=True)
        if a.counts
    ]
    labelled = [(a, b) for a, b in pairs if a or b]
    same = sum(a == b for a, b in pairs) / len(pairs)
    same_labelled = sum(a == b for a, b in labelled) / max(1, len(labelled))
    return same, same_labelled, len(labelled), len(pairs)


def timing(results: list[tuple[Analysis, float]], deals: int) -> tuple[float, float, float]:
    """Milliseconds a decision and a searched decision; seconds an entrant of a 4-game match
    of the default 5 deals a game."""
    decisions = sum(len(a.verdicts) for a, _ in results)
    searched = sum(bool(v.options) for a, _ in results for v in a.verdicts)
    seconds = sum(s for _, s in results)
    entrant = seconds / len(results) * DEAL_SCALE / deals
    return 1000 * seconds / decisions, 1000 * seconds / searched, entrant


def budgets(pool: ProcessPoolExecutor, records: list[dict], sizes: list[int], deals: int) -> None:
    print("\nsamples  ms/decision  ms/searched  s/entrant  same label  same among labelled")
    jobs = [(r, e) for r in records for e in (0, 1, 3)]
    for samples in sizes:
        first = run_all(pool, [(r, e, samples, 0) for r, e in jobs])
        second = run_all(pool, [(r, e, samples, 1) for r, e in jobs])
        same, labelled, n, _ = agreement([a for a, _ in first], [a for a, _ in second])
        ms, searched, entrant = timing(first + second, deals)
        print(
            f"{samples:>7}  {ms:>11.0f}  {searched:>11.0f}  {entrant:>9.0f}  {100 * same:>9.1f}%"
            f"  {100 * labelled:>6.1f}% of {n}"
        )


def report(pool: ProcessPoolExecutor, records: list[dict], deals: int) -> None:
    """Every entrant analysed at the default budget; the random and heuristic ones again
    from another seed."""
    jobs = [(r, e, DEFAULT_SAMPLES, 0) for r in records for e in range(4)]
    results = run_all(pool, jobs)
    by_bot: dict[str, list[Analysis]] = defaultdict(list)
    for (_, e, _, _), (found, _) in zip(jobs, results, strict=True):
        by_bot[TABLE[e]].append(found)
    report_losses(by_bot)
    ms, searched, entrant = timing(results, deals)
    print(
        f"\nanalysis time at {DEFAULT_SAMPLES} samples: {ms:.0f} ms a decision ({searched:.0f}"
        f" ms a searched one); {entrant:.0f} s an entrant of a 4-game {DEAL_SCALE}-deal match"
    )
    judged = [i for i, (_, e, _, _) in enumerate(jobs) if TABLE[e] != "master"]
    again = run_all(pool, [(*jobs[i][:3], 1) for i in judged])
    first = [results[i][0] for i in judged]
    same, labelled, n, total = agreement(first, [a for a, _ in again])
    print(
        f"label agreement between seeds 0 and 1 (random, heuristic; {total} decisions): "
        f"{100 * same:.1f}% the same label; {100 * labelled:.1f}% of the {n} labelled "
        f"in either run"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, help="8; 4 with --budgets")
    parser.add_argument("--deals", type=int, default=2, help="deals per game")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="2 matches of 1 deal a game")
    parser.add_argument("--budgets", help="comma-separated sample budgets to compare")
    args = parser.parse_args()
    args.matches = args.matches or (4 if args.budgets else 8)
    if args.quick:
        args.matches, args.deals = 2, 1
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.jobs, initializer=warm) as pool:
        records = list(pool.map(play, range(args.matches), [args.deals] * args.matches))
        print(
            f"{args.matches} matches of 4 games x {args.deals} deals played "
            f"in {time.perf_counter() - start:.0f} s; table {', '.join(TABLE)}"
        )
        if args.budgets:
            budgets(pool, records, [int(x) for x in args.budgets.split(",")], args.deals)
        else:
            report(pool, records, args.deals)
    print(f"\ntotal {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
