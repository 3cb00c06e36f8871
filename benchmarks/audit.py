"""The fair-play audit's power and false-flag rate, by simulation through the real referee.

Every match is played by ``arena.referee.play_match`` with in-process house bots (4 games
of 5 deals, pagat); the audit is ``arena.ratings.audit`` on the games as the store keeps
them (one row per bot per game: seat and points).

(a) Memory cheat.  A master (the house search bot, fixed sample count) that remembers every
card of game 1 (from the tricks it is told about, as any bot could) and so knows every hand
of the deals in games 2-4, which its search then uses instead of sampled deals. Three
heuristics fill the table.
(b) Colluding pair.  Two such masters that tell each other their hands whenever both sit at
the table (a shared object stands for the covert channel); apart they play honestly. Six
bots (the pair and four heuristics of different noise) play every 4-subset in turn, so
the pair sits together in 6 of 15 matches.
(c) Honest field.  Six bots (heuristics with noise 0, 0.1, 0.2, 0.3, honest masters in the
pair's seats) over the same schedule; the audit tests every bot and, as ``--all-pairs``,
every pair: 6 + 15 = 21 tests per audit.

Figures.  Matches are simulated once into a pool (``--pool`` per scenario; ``--pools
FILE`` keeps them for the next run, which is deterministic anyway). "Flagged after how
many matches" runs the audit after every match of 100 random orders of a pool: the median
and 90th percentile of the first match at which the target is flagged, at the threshold of
an audit of m tests (for (a) m = 4, the cheat's table; for (b) m = 7, the six bots and the
one same-owner pair; and m = 100 for a large platform). For (c), each seed draws a
tournament of ``--honest-matches`` distinct matches from the honest pool, each replayed as
if its first game were any of its games and its two masters' labels swapped at random,
and counts the seeds whose audit flags anything. Tournaments of different seeds share
matches, so the rate's uncertainty is larger than a binomial one over the seeds.

Run: python benchmarks/audit.py [--pool 150] [--seeds 2000] [--jobs 2] [--samples 32]
       [--pools FILE]
"""

from __future__ import annotations

import argparse
import dataclasses
import pickle
import random
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from itertools import combinations
from pathlib import Path

import numpy as np

from arena.game import CALLING, PAGAT, Observation, derive_seed
from arena.game.cards import FULL_DECK, mask_of
from arena.house import HeuristicBot
from arena.house.master import MasterBot
from arena.house.master.cache import warm
from arena.house.master.inference import Inference
from arena.players.inprocess import InProcessPlayer
from arena.players.player import Event, Request, TrickEnd
from arena.ratings.audit import FAMILY_ALPHA, Seating, audit, luck_share, rotation_contrasts
from arena.referee import MatchSpec, play_match

RULES = PAGAT.with_(deals_per_game=5)
GAMES = 4
NOISES = (0.0, 0.1, 0.2, 0.3)
Target = Callable[[list[Seating]], float | None]
SCHEDULE = list(combinations(range(6), 4))  # bots 0 and 1 are the pair; 15 tables a round


class KnowingMaster(MasterBot):
    """The master whose sampled deals keep the hands of the seats in ``known`` (seat →
    the cards it holds now) as they are: the true hands stand in for a guess."""

    known: dict[int, int]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.known = {}

    def _reader(self, obs: Observation, know: Inference):
        if not self.known:
            return super()._reader(obs, know)
        taken = 0
        for hand in self.known.values():
            taken |= hand
        excluded = tuple(
            FULL_DECK & ~self.known[s] if s in self.known else e | taken
            for s, e in enumerate(know.excluded)
        )
        return super()._reader(obs, dataclasses.replace(know, excluded=excluded))


class Cheat(InProcessPlayer):
    """A knowing master that learns hands through ``learn`` and is told them in ``tell``."""

    def __init__(self, name: str, seed: int, samples: int) -> None:
        super().__init__(KnowingMaster(seed=seed, samples=samples), name)
        self.deal = 0

    def decide(self, request: Request, timeout_s: float):
        obs = request.observation
        self.deal = obs.deal
        played = 0
        for trick in (*obs.tricks, obs.current):
            played |= mask_of(trick.cards)
        dealt = self.tell(request.game, obs)
        self.strategy.known = {s: hand & ~played for s, hand in dealt.items() if s != obs.seat}
        return super().decide(request, timeout_s)

    def tell(self, game: int, obs: Observation) -> dict[int, int]:
        return {}


class MemoryCheat(Cheat):
    """Remembers who played which card in each deal of the first game: from the second
    game on, the same deals are dealt to the same seats, so it knows every hand."""

    def __init__(self, name: str, seed: int, samples: int) -> None:
        super().__init__(name, seed, samples)
        self.game = 0
        self.memory: dict[int, list[int]] = {}

    def decide(self, request: Request, timeout_s: float):
        self.game = request.game
        return super().decide(request, timeout_s)

    def notify(self, event: Event) -> None:
        if isinstance(event, TrickEnd) and self.game == 0:
            hands = self.memory.setdefault(self.deal, [0, 0, 0, 0])
            for i, card in enumerate(event.trick.cards):
                hands[event.trick.seat_of(i)] |= 1 << card
        super().notify(event)

    def tell(self, game: int, obs: Observation) -> dict[int, int]:
        hands = self.memory.get(obs.deal) if game > 0 else None
        return dict(enumerate(hands)) if hands else {}


class Colluder(Cheat):
    """Posts its dealt hand on ``board`` (the covert channel) and reads its partner's."""

    def __init__(self, name: str, seed: int, samples: int, board: dict) -> None:
        super().__init__(name, seed, samples)
        self.board = board

    def tell(self, game: int, obs: Observation) -> dict[int, int]:
        key = (game, obs.deal)
        if obs.phase == CALLING:
            self.board.setdefault(key, {})[obs.seat] = mask_of(obs.hand)
        return {s: h for s, h in self.board.get(key, {}).items() if s != obs.seat}


def seatings(result, match: int, bots: list[int]) -> list[Seating]:
    """The match's games as the store keeps them: one row per bot per game."""
    return [
        Seating(match, g.index, bots[e], g.seats.index(e), g.points[e] / 10, g.deals)
        for g in result.games
        for e in range(4)
    ]


def play(job: tuple[str, int, int]) -> list[Seating]:
    """One match of a scenario, its rows labelled by the scenario's bot numbers."""
    scenario, number, samples = job
    seed = derive_seed("audit-benchmark", scenario, number)
    rng = random.Random(seed)
    bots = [0, 2, 3, 4] if scenario == "memory" else list(SCHEDULE[number % len(SCHEDULE)])
    rng.shuffle(bots)  # seats balanced over matches, as a scheduler does
    board: dict = {}

    def player(bot: int, k: int):
        name = f"bot{bot}"
        if bot >= 2:
            return InProcessPlayer(HeuristicBot(seed + k, noise=NOISES[bot - 2]), name)
        if scenario == "memory":
            return MemoryCheat(name, seed + k, samples)
        if scenario == "pair":
            return Colluder(name, seed + k, samples, board)
        return Cheat(name, seed + k, samples)  # honest: it is never told anything

    players = [player(b, k) for k, b in enumerate(bots)]
    spec = MatchSpec(f"audit-{scenario}-{number}", RULES, seed, GAMES)
    return seatings(play_match(spec, players), number, bots)


def pools(args: argparse.Namespace) -> dict[str, list[list[Seating]]]:
    """The three pools, from ``--pools FILE`` when it holds the same settings (the
    simulation is deterministic, so this only saves its time), else simulated and saved."""
    key = (args.pool, args.samples)
    path = Path(args.pools) if args.pools else None
    if path is not None and path.exists():
        saved = pickle.loads(path.read_bytes())
        if saved["key"] == key:
            print(f"  pools read from {path}")
            return saved["pools"]
    made = {s: pool(s, args.pool, args.samples, args.jobs) for s in ("memory", "pair", "honest")}
    if path is not None:
        path.write_bytes(pickle.dumps({"key": key, "pools": made}))
    return made


def pool(scenario: str, size: int, samples: int, jobs: int) -> list[list[Seating]]:
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=jobs, initializer=warm) as ex:
        matches = list(ex.map(play, [(scenario, n, samples) for n in range(size)]))
    took = time.perf_counter() - start
    print(f"  {scenario}: {size} matches in {took:.0f} s", flush=True)
    return matches


def p_paths(matches: list[list[Seating]], target: Target, orders: int) -> list[list[float]]:
    """Over random orders of ``matches``: the target's p-value after each match (1 while
    it has too few)."""
    paths = []
    for k in range(orders):
        order = random.Random(k).sample(matches, len(matches))
        rows: list[Seating] = []
        path = []
        for match in order:
            rows.extend(match)
            p = target(rows)
            path.append(1.0 if p is None else p)
        paths.append(path)
    return paths


def first_flag(paths: list[list[float]], tests: int) -> list[int]:
    """Per order, the first count of matches after which the p-value is under the
    threshold of an audit of ``tests`` tests (len + 1: never)."""
    threshold = FAMILY_ALPHA / tests
    never = len(paths[0]) + 1 if paths else 1
    return [next((n for n, p in enumerate(path, 1) if p <= threshold), never) for path in paths]


def cheat_p(rows: list[Seating]) -> float | None:
    """The memory cheat's rotation p-value."""
    return next(f.p for f in audit(rows, []).rotation if f.bots == (0,))


def pair_p(rows: list[Seating]) -> float | None:
    """The colluding pair's p-value."""
    return audit(rows, [(0, 1)]).pairs[0].p


def honest_false_flags(matches: list[list[Seating]], per_seed: int, seeds: int) -> str:
    """Share of resampled honest tournaments whose all-pairs audit flags anything, and by
    which kind of test. A tournament is ``per_seed`` distinct matches of the pool (drawn
    with replacement, a match counted twice would shrink its own standard error), each
    replayed as if its first game were any of its games (a cyclic shift of the game
    numbers: the same deals started from another seat, as likely for honest bots), its two
    masters' labels swapped at random (bots of one kind are exchangeable)."""
    pairs = list(combinations(range(6), 2))
    flagged, kinds = 0, {"rotation": 0, "pair": 0}
    for seed in range(seeds):
        rng = random.Random(seed)
        rows: list[Seating] = []
        for n, match in enumerate(rng.sample(matches, per_seed)):
            shift = rng.randrange(GAMES)
            swap = {0: 1, 1: 0} if rng.random() < 0.5 else {}
            rows.extend(
                dataclasses.replace(
                    r, match=n, game=(r.game - shift) % GAMES, bot=swap.get(r.bot, r.bot)
                )
                for r in match
            )
        result = audit(rows, pairs)
        found = [f for f in result.rotation + result.pairs if f.flagged]
        flagged += bool(found)
        for kind in {f.kind for f in found}:
            kinds[kind] += 1
    by_kind = ", ".join(f"{k} {100 * n / seeds:.2f}%" for k, n in kinds.items())
    return f"{100 * flagged / seeds:.2f}% of {seeds} audits flag anything ({by_kind})"


def effect(matches: list[list[Seating]], bot: int) -> str:
    """The bot's rotation advantage per match (mean, SD and their ratio, which sets the
    matches a test needs) by the audit's estimator, by the plain duplicate comparison
    (β = 1) and by raw margins (points a deal minus the table's mean, later games minus
    the first)."""
    contrasts = rotation_contrasts([r for m in matches for r in m])
    beta = luck_share(contrasts)
    own, same = np.array(contrasts[bot]).T
    raw = [_raw_difference(m, bot) for m in matches if any(r.bot == bot for r in m)]
    parts = [f"luck share β = {beta:.2f}"]
    for label, d in (("audit", own - beta * same), ("duplicate", own - same), ("raw", raw)):
        mean, sd = np.mean(d), np.std(d, ddof=1)
        parts.append(f"{label} {mean:+.2f} SD {sd:.2f} (mean/SD {mean / sd:+.2f})")
    return "; ".join(parts)


def _raw_difference(match: list[Seating], bot: int) -> float:
    margin = {}
    for g in range(GAMES):
        table = [r.points / r.deals for r in match if r.game == g]
        mine = next(r.points / r.deals for r in match if r.game == g and r.bot == bot)
        margin[g] = mine - sum(table) / len(table)
    return sum(margin[g] for g in range(1, GAMES)) / (GAMES - 1) - margin[0]


def summary(hits: list[int], size: int) -> str:
    """Median and 90th percentile of the first flags; past the pool: never within it."""
    cut = sorted(hits)

    def at(q: float) -> str:
        n = cut[int(q * (len(cut) - 1))]
        return f"{n}" if n <= size else f">{size}"

    never = sum(h > size for h in hits)
    return f"median {at(0.5)}, 90th percentile {at(0.9)} ({never} of {len(hits)} never)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pool", type=int, default=150, help="matches per scenario")
    parser.add_argument("--honest-matches", type=int, default=60, help="matches per seed (c)")
    parser.add_argument("--seeds", type=int, default=2000, help="honest tournaments (c)")
    parser.add_argument("--orders", type=int, default=100, help="orders of the pool (a, b)")
    parser.add_argument("--samples", type=int, default=32, help="the masters' samples")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--pools", help="keep the simulated matches in this file, reuse them")
    args = parser.parse_args()
    print(f"pools: {GAMES} games x {RULES.deals_per_game} deals, masters at {args.samples} samples")
    made = pools(args)
    memory, pair, honest = made["memory"], made["pair"], made["honest"]
    print(f"(a) memory cheat's rotation advantage, points/deal: {effect(memory, 0)}")
    print(f"    an honest master's: {effect(honest, 0)}")
    paths = p_paths(memory, cheat_p, args.orders)
    for tests in (4, 100):
        hits = first_flag(paths, tests)
        print(f"    flagged (m = {tests} tests) after {summary(hits, args.pool)} matches")
    pair_effect = audit([r for m in pair for r in m], [(0, 1)]).pairs[0]
    honest_pair = audit([r for m in honest for r in m], [(0, 1)]).pairs[0]
    print(
        f"(b) colluding pair: pair advantage {pair_effect.estimate:+.2f} ± "
        f"{pair_effect.se:.2f} (SE) over {pair_effect.matches} matches together; the same "
        f"two masters honest: {honest_pair.estimate:+.2f} ± {honest_pair.se:.2f}"
    )
    paths = p_paths(pair, pair_p, args.orders)
    for tests in (7, 100):
        hits = first_flag(paths, tests)
        print(f"    flagged (m = {tests} tests) after {summary(hits, args.pool)} matches")
    rate = honest_false_flags(honest, args.honest_matches, args.seeds)
    print(
        f"(c) honest field, {args.honest_matches} of the {args.pool} matches, 6 bots + 15 "
        f"pairs tested: {rate} (target <= 1%)"
    )


if __name__ == "__main__":
    main()
