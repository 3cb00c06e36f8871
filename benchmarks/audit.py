"""The fair-play audit's power, false-flag rate and cost, by simulation through the real referee.

Every match is played by ``arena.referee.play_match`` with in-process bots (4 games of 5
deals, pagat), and judged as the workers judge a finished match
(``arena.analysis.hindsight.match_hindsight``: every entrant, under the true deal and with
each other entrant's hand). The audit is ``arena.ratings.audit`` on the games as the store
keeps them (one row per bot per game) and on the telling decisions (trials), with every two
bots that shared a table tested as a pair by their decisions, as ``arena audit`` does.

Scenarios (the cheats and the cold start are in ``benchmarks/cheats.py``):
(memory)  a master (fixed sample count) that remembers every card of game 1 and searches
          the true hands in games 2-4, against three heuristics;
(subtle)  the same cheat using what it remembers at a quarter of its decisions;
(pair)    two masters that tell each other their hands whenever both sit at the table,
          in a round robin of six (the pair and four heuristics): together in 6 of 15;
(honest)  six honest bots of different styles over the same schedule: a master, a master
          that plays its first game of a match as a noisy heuristic (a cold start), the
          heuristic at noise 0, 0.1 and 0.2, and the random bot.

Figures.  Matches are simulated once into a pool per scenario (``--pools FILE`` keeps them).
"Flagged after" runs the whole audit after every match of ``--orders`` random orders of a
pool: the median and 90th percentile of the first match after which the target bot (or
pair) is flagged by any of its tests, at the audit's own threshold, and at that of a large
platform (m = 100 tests). For the honest field, each seed draws a tournament of
``--honest-matches`` distinct matches from the honest pool and counts the seeds whose audit
flags anything (decision and points tests, every pair). Cost: the CPU seconds of judging a
match against those of playing it.

Run: python benchmarks/audit.py [--pool 40] [--pair-pool 60] [--honest-pool 120]
       [--seeds 1000] [--jobs 2] [--samples 32] [--pools FILE]
"""

from __future__ import annotations

import argparse
import pickle
import random
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks.cheats

from arena.analysis.hindsight import match_hindsight
from arena.game import PAGAT, derive_seed
from arena.house import HeuristicBot, RandomBot
from arena.house.master.cache import warm
from arena.players.inprocess import InProcessPlayer
from arena.ratings.audit import FAMILY_ALPHA, Audit, Seating, audit
from arena.ratings.telling import Trial
from arena.referee import MatchSpec, play_match
from benchmarks.cheats import Cheat, ColdStart, Colluder, MemoryCheat

RULES = PAGAT.with_(deals_per_game=5)
GAMES = 4
SCHEDULE = list(combinations(range(6), 4))  # bots 0 and 1: the pair; 15 tables a round
LARGE = 100  # tests of a large platform's audit


@dataclass(frozen=True)
class Played:
    """One simulated match: its rows as the store keeps them, the trials of its telling
    decisions (bots by their scenario number), and the CPU seconds to play and to judge."""

    rows: list[Seating]
    trials: list[tuple[int, int, int | None, bool]]  # bot, game, seen bot, followed truth
    play_cpu: float
    judge_cpu: float


def player(scenario: str, bot: int, seed: int, samples: int, board: dict):
    name = f"bot{bot}"
    if scenario == "honest":
        kinds = {
            0: lambda: Cheat(name, seed, samples),  # told nothing: an honest master
            1: lambda: ColdStart(name, seed, samples),
            2: lambda: InProcessPlayer(HeuristicBot(seed), name),
            3: lambda: InProcessPlayer(HeuristicBot(seed, noise=0.1), name),
            4: lambda: InProcessPlayer(HeuristicBot(seed, noise=0.2), name),
            5: lambda: InProcessPlayer(RandomBot(seed), name),
        }
        return kinds[bot]()
    if bot >= 2:
        return InProcessPlayer(HeuristicBot(seed, noise=0.1 * (bot - 2)), name)
    if scenario == "pair":
        return Colluder(name, seed, samples, board)
    return MemoryCheat(name, seed, samples, share=0.25 if scenario == "subtle" else 1.0)


def play(job: tuple[str, int, int]) -> Played:
    """One match of a scenario, played and judged."""
    scenario, number, samples = job
    seed = derive_seed("audit-benchmark", scenario, number)
    rng = random.Random(seed)
    single = scenario in ("memory", "subtle")
    bots = [0, 2, 3, 4] if single else list(SCHEDULE[number % len(SCHEDULE)])
    rng.shuffle(bots)  # seats balanced over matches, as a scheduler does
    board: dict = {}
    players = [player(scenario, b, seed + k, samples, board) for k, b in enumerate(bots)]
    start = time.process_time()
    spec = MatchSpec(f"audit-{scenario}-{number}", RULES, seed, GAMES)
    result = play_match(spec, players)
    played = time.process_time()
    judged = match_hindsight(result.record, range(4), seed)
    done = time.process_time()
    rows = [
        Seating(number, g.index, bots[e], g.seats.index(e), g.points[e] / 10, g.deals)
        for g in result.games
        for e in range(4)
    ]
    trials = [
        (bots[h.entrant], t.game, None if t.seen is None else bots[t.seen], t.followed == "truth")
        for h in judged
        for t in h.telling
        if t.followed != "neither"
    ]
    return Played(rows, trials, played - start, done - played)


def trials_of(matches: list[tuple[int, Played]]) -> list[Trial]:
    """The trials of ``matches`` (each under its number in the audit)."""
    return [
        Trial(n, bot, game == 0, seen, truth)
        for n, m in matches
        for bot, game, seen, truth in m.trials
    ]


def audit_of(matches: list[tuple[int, Played]], points_pairs: bool = False) -> Audit:
    """The audit as ``arena audit`` runs it: every bot, every two that shared a table by
    their decisions (and by points with ``points_pairs``, as ``--all-pairs``)."""
    rows = [r for _, m in matches for r in m.rows]
    met = sorted({p for _, m in matches for p in combinations(sorted({r.bot for r in m.rows}), 2)})
    return audit(rows, met if points_pairs else [], trials_of(matches), met)


def pools(args: argparse.Namespace) -> dict[str, list[Played]]:
    """The pools, from ``--pools FILE`` when it holds the same settings (the simulation is
    deterministic, so this only saves its time), else simulated and saved."""
    sizes = {
        "memory": args.pool,
        "subtle": args.pool,
        "pair": args.pair_pool,
        "honest": args.honest_pool,
    }
    key = (sizes, args.samples)
    path = Path(args.pools) if args.pools else None
    if path is not None and path.exists():
        saved = pickle.loads(path.read_bytes())
        if saved["key"] == key:
            print(f"  pools read from {path}")
            return saved["pools"]
    made = {s: pool(s, n, args.samples, args.jobs) for s, n in sizes.items()}
    if path is not None:
        path.write_bytes(pickle.dumps({"key": key, "pools": made}))
    return made


def pool(scenario: str, size: int, samples: int, jobs: int) -> list[Played]:
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=jobs, initializer=warm) as ex:
        matches = list(ex.map(play, [(scenario, n, samples) for n in range(size)]))
    print(f"  {scenario}: {size} matches in {time.perf_counter() - start:.0f} s", flush=True)
    return matches


Target = Callable[[Audit, float], bool]  # (audit, threshold) -> the target is flagged


def flagged_bot(bot: int) -> Target:
    return lambda a, threshold: any(
        f.p is not None and f.p <= threshold and f.bots == (bot,) for f in a.decisions + a.rotation
    )


def flagged_pair(a: Audit, threshold: float) -> bool:
    return any(f.p is not None and f.p <= threshold and f.bots == (0, 1) for f in a.decision_pairs)


def first_flags(matches: list[Played], target: Target, orders: int, count: Callable) -> dict:
    """Per order of the pool, the count (``count(prefix)``) at the first audit that flags
    the target at its own threshold, and at a large platform's; never: None."""
    found: dict[str, list[int | None]] = {"own": [], "large": []}
    for k in range(orders):
        order = list(enumerate(random.Random(k).sample(matches, len(matches))))
        hit: dict[str, int | None] = {"own": None, "large": None}
        for n in range(1, len(order) + 1):
            a = audit_of(order[:n])
            for name, threshold in (("own", a.threshold), ("large", FAMILY_ALPHA / LARGE)):
                if hit[name] is None and target(a, threshold):
                    hit[name] = count(order[:n])
            if None not in hit.values():
                break
        for name in found:
            found[name].append(hit[name])
    return found


def summary(hits: list[int | None]) -> str:
    """Median and 90th percentile of the first flags (never: past the pool)."""
    never = sum(h is None for h in hits)
    cut = sorted(h if h is not None else 10**9 for h in hits)

    def at(q: float) -> str:
        n = cut[int(q * (len(cut) - 1))]
        return "never" if n == 10**9 else str(n)

    return f"median {at(0.5)}, 90th percentile {at(0.9)} ({never} of {len(hits)} never)"


def rates(matches: list[Played], bot: int, seen: int | None = None) -> str:
    """The bot's rate of following the truth: later games / first (or given ``seen``'s
    hand / others')."""
    rows = [t for m in matches for t in m.trials if t[0] == bot]
    if seen is None:
        groups = [[t[3] for t in rows if t[2] is None and t[1] > 0]]
        groups.append([t[3] for t in rows if t[2] is None and t[1] == 0])
        names = ("later games", "first games")
    else:
        groups = [
            [t[3] for t in rows if t[2] == seen],
            [t[3] for t in rows if t[2] not in (None, seen)],
        ]
        names = (f"given bot{seen}'s hand", "given another's")
    return ", ".join(
        f"{name} {sum(g)}/{len(g)} = {sum(g) / max(1, len(g)):.2f}"
        for name, g in zip(names, groups, strict=True)
    )


def honest_false_flags(matches: list[Played], per_seed: int, seeds: int, points_pairs: bool) -> str:
    """Share of honest tournaments (``per_seed`` distinct matches of the pool) whose audit
    flags anything, and by which kind of test."""
    flagged, kinds = 0, {}
    for seed in range(seeds):
        drawn = list(enumerate(random.Random(seed).sample(matches, per_seed)))
        a = audit_of(drawn, points_pairs)
        found = [f for f in a.findings if f.flagged]
        flagged += bool(found)
        for kind in {f.kind for f in found}:
            kinds[kind] = kinds.get(kind, 0) + 1
    by_kind = ", ".join(f"{k} {100 * n / seeds:.2f}%" for k, n in sorted(kinds.items())) or "none"
    return f"{100 * flagged / seeds:.2f}% of {seeds} audits flag anything ({by_kind})"


def together(prefix: list[tuple[int, Played]]) -> int:
    return sum(1 for _, m in prefix if {0, 1} <= {r.bot for r in m.rows})


def cost(made: dict[str, list[Played]]) -> str:
    every = [m for ms in made.values() for m in ms]
    play_s = sum(m.play_cpu for m in every) / len(every)
    judge_s = sum(m.judge_cpu for m in every) / len(every)
    return (
        f"{judge_s:.1f} CPU s to judge a match's four entrants ({judge_s / 4:.1f} an entrant), "
        f"{play_s:.1f} CPU s to play it in process, over {len(every)} matches"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pool", type=int, default=40, help="matches per cheating scenario")
    parser.add_argument("--pair-pool", type=int, default=60, help="matches of the pair's field")
    parser.add_argument("--honest-pool", type=int, default=120, help="honest matches")
    parser.add_argument("--honest-matches", type=int, default=15, help="matches per honest audit")
    parser.add_argument("--seeds", type=int, default=1000, help="honest audits")
    parser.add_argument("--orders", type=int, default=40, help="orders of a cheating pool")
    parser.add_argument("--samples", type=int, default=32, help="the masters' samples")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--pools", help="keep the simulated matches in this file, reuse them")
    args = parser.parse_args()
    print(f"pools: {GAMES} games x {RULES.deals_per_game} deals, masters at {args.samples} samples")
    made = pools(args)
    print(f"cost: {cost(made)}")
    matches = lambda prefix: len(prefix)  # noqa: E731
    for scenario, what in (("memory", "memory cheat"), ("subtle", "subtle cheat (25%)")):
        print(f"({scenario}) {what}: follows the truth at {rates(made[scenario], 0)}")
        found = first_flags(made[scenario], flagged_bot(0), args.orders, matches)
        print(f"    flagged after {summary(found['own'])} matches (the audit's threshold)")
        print(f"    flagged after {summary(found['large'])} matches (m = {LARGE})")
    print(f"(pair) colluder 0: {rates(made['pair'], 0, seen=1)}")
    print(f"       colluder 1: {rates(made['pair'], 1, seen=0)}")
    found = first_flags(made["pair"], flagged_pair, args.orders, together)
    print(f"    flagged after {summary(found['own'])} matches together (the audit's threshold)")
    print(f"    flagged after {summary(found['large'])} matches together (m = {LARGE})")
    honest = made["honest"]
    for bot, name in ((0, "master"), (1, "cold start"), (5, "random")):
        print(f"(honest) {name}: follows the truth at {rates(honest, bot)}")
    for points_pairs in (False, True):
        rate = honest_false_flags(honest, args.honest_matches, args.seeds, points_pairs)
        which = "every pair by decisions and points" if points_pairs else "the default"
        print(f"    {args.honest_matches}-match audits, {which}: {rate} (target <= 1%)")


if __name__ == "__main__":
    main()
