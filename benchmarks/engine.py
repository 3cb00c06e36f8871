"""Engine speed on one core: full deals through the state machine, playouts on the fast path.

Run: python benchmarks/engine.py [--seconds S]
Targets: >= 3,000 full deals/s through the state machine, >= 25,000 playouts/s.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' playout kernel

from arena.game import PAGAT, Deal, derive_seed
from tests.game.playouts import Position, playouts


def random_deal(seed: int, rng: random.Random) -> Deal:
    """A whole deal with uniformly random legal calls and cards, via the public state machine."""
    deal = Deal(PAGAT, seed, dealer=seed % 4)
    calls = deal.legal_calls()
    for _ in range(4):
        deal.call(deal.to_act, rng.choice(calls))
    while deal.to_act is not None:
        deal.play(deal.to_act, rng.choice(deal.legal_cards()))
    return deal


def rate(work, seconds: float) -> float:
    """Calls of ``work(i)`` per second over about ``seconds``."""
    done, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        for _ in range(10):
            work(done)
            done += 1
    return done / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    args = parser.parse_args()
    rng = random.Random(1)
    deals = rate(lambda i: random_deal(derive_seed("bench", i), rng), args.seconds)

    starts = []
    for i in range(64):
        deal = Deal(PAGAT, derive_seed("playout", i))
        for _ in range(4):
            deal.call(deal.to_act, 3)
        starts.append(Position.from_deal(deal))
    playouts(starts[0], 1)  # compile (or load numba's cache) outside the timing
    batch = 2000
    per_call = rate(lambda i: playouts(starts[i % 64], batch, seed=i), args.seconds / 5)
    rate_playouts = per_call * batch

    print(f"state machine: {deals:10,.0f} full random deals/s   (target >= 3,000)")
    print(f"fast path:     {rate_playouts:10,.0f} random playouts/s   (target >= 25,000)")
    print(f"fast path / state machine: {rate_playouts / deals:.0f}x (52 cards each, same process)")


if __name__ == "__main__":
    main()
