"""How much the master's reading of the other seats tells it: the share of hidden cards its
sampled deals put in the right seat, against uniform deals the rules allow (the baseline,
same positions, same process).

Positions come from games of four house heuristics (the model the master reads them with),
after 4, 16, 28 and 40 cards played; the master's seat is the one to act. For each position
the master draws 256 deals (8 chains of 32, ``MasterBot._reader``) and the baseline 256
uniform constrained deals (``kernels.sample_hands``); a hidden card counts as placed when
the deal gives it to the seat that really holds it.

Run: python benchmarks/master_reading.py [--rules pagat] [--positions 40]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from arena.game import CALLING, Game, Observation, derive_seed, get_ruleset
from arena.house import HeuristicBot
from arena.house.master import MasterBot
from arena.house.master.inference import Inference, infer

DRAWS = 256


def positions(rules_name: str, count: int, played: int) -> list[tuple[Observation, list[int]]]:
    """``count`` positions of heuristic play after ``played`` cards, with the true hands."""
    rules = get_ruleset(rules_name)
    out = []
    for g in range(count):
        bots = [HeuristicBot(seed=s) for s in range(4)]
        game = Game(rules, derive_seed("reading", rules_name, g), first_dealer=g % 4)
        while True:
            seat = game.deal.to_act
            obs = game.observation(seat)
            shown = sum(len(t.cards) for t in obs.tricks) + len(obs.current.cards)
            if obs.phase != CALLING and shown >= played:
                out.append((obs, list(game.deal.hands)))
                break
            move = bots[seat].call(obs) if obs.phase == CALLING else bots[seat].play(obs)
            (game.call if obs.phase == CALLING else game.play)(seat, move)
    return out


def placed(deals: np.ndarray, know: Inference, true: list[int]) -> float:
    right = sum(
        (int(row[s]) & true[s]).bit_count() for row in deals for s in range(4) if s != know.seat
    )
    return right / len(deals) / max(1, know.unseen.bit_count())


def uniform(know: Inference, seed: int) -> np.ndarray:
    from arena.house.master import kernels

    cards = np.array([c for c in range(52) if know.unseen >> c & 1], np.int64)
    allowed = np.array([know.allowed(int(c)) for c in cards], np.int64)
    fixed = np.zeros(4, np.int64)
    fixed[know.seat] = know.hand
    return kernels.sample_hands(DRAWS, seed, fixed, cards, allowed, np.array(know.need, np.int64))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="pagat")
    parser.add_argument("--positions", type=int, default=40)
    args = parser.parse_args()
    bot = MasterBot()
    print(f"hidden cards placed in the right seat, {args.rules}, {args.positions} positions each")
    for played in (4, 16, 28, 40):
        read, base, spent = [], [], 0.0
        for i, (obs, true) in enumerate(positions(args.rules, args.positions, played)):
            know = infer(obs)
            start = time.perf_counter()
            deals = bot._reader(obs, know)
            drawn = np.concatenate([deals(DRAWS // 8, 8 * i + k) for k in range(8)])
            spent += time.perf_counter() - start
            read.append(placed(drawn, know, true))
            base.append(placed(uniform(know, i), know, true))
        r, b = float(np.mean(read)), float(np.mean(base))
        print(
            f"  after {played:2} cards: read {r:.3f}  uniform {b:.3f}  ratio {r / b:.2f}  "
            f"({spent * 1000 / args.positions:.0f} ms per position for {DRAWS} deals)",
            flush=True,
        )


if __name__ == "__main__":
    main()
