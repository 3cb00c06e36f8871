"""Engine speed on one core: full deals through the state machine, playouts on the fast path.

Run: python benchmarks/engine.py [--seconds S]
Targets (issue 2): >= 3,000 full deals/s through the state machine, >= 25,000 playouts/s.
"""

from __future__ import annotations

import argparse
import random
import time

from arena.game import PAGAT, Deal, Position, derive_seed, playout


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
        for _ in range(50):
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
    playouts = rate(lambda i: playout(starts[i % 64], rng.random), args.seconds)

    print(f"state machine: {deals:10,.0f} full random deals/s   (target >= 3,000)")
    print(f"fast path:     {playouts:10,.0f} random playouts/s   (target >= 25,000)")
    print(f"a playout costs {deals / playouts:.2f}x a full state-machine deal's time... inverse:")
    print(f"fast path / state machine: {playouts / deals:.1f}x (52 cards each, same process)")


if __name__ == "__main__":
    main()
