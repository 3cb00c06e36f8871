"""Scheduling speed: a round robin of 40 bots over 1,000 tables, as a large tournament asks.

Run: python benchmarks/schedule.py [--bots N] [--tables T] [--repeat R]
Prints the best of R runs and tables per second (the test suite checks the spread only).
"""

from __future__ import annotations

import argparse
import time

from arena.tournaments.schedule import schedule


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=40)
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    names = [f"bot{i:03d}" for i in range(args.bots)]
    best = float("inf")
    for run in range(args.repeat):
        start = time.perf_counter()
        schedule(names, seed=2024 + run, tables=args.tables)
        best = min(best, time.perf_counter() - start)
    print(
        f"{args.bots} bots, {args.tables} tables: {best:.3f} s "
        f"({args.tables / best:,.0f} tables/s, best of {args.repeat})"
    )


if __name__ == "__main__":
    main()
