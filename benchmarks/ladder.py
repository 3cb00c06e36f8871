"""The standing ladder's matchmaker on the engine pool: placement, top 3,
accuracy, cost, rest.

The pool is ``benchmarks/engine_pool.py``'s: N house heuristic bots with known noise, so the
true order is known, played as the referee plays a duplicate match, in this process. The
ladder is simulated as the platform runs it: the rating fit of every game so far
(``arena.ratings.fit``, the default model, as the ladder's ``cached_standings`` does), tables from
``arena.ladders.matchmaking.next_tables`` with the real ``Knobs`` defaults (placement 8,
settle ±50 Elo), ``--depth`` tables kept scheduled (in flight, counted as played, as
``ladder_state`` passes them), refitted after every ``--batch`` matches played, until the
matchmaker schedules nothing. Each bot has its own owner and a version id in random order
(the matchmaker breaks ties by name: ids in strength order would leak the truth to it). The
round robin it is compared with is the platform's schedule (``engine_pool.round_robin``),
cycle after cycle, on the same pool, fitted and checked after every batch too. Printed side
by side, over the seeds (median, range, every seed):

1. Placement: a ladder settled on N-1 bots, then the ``--newcomer`` enters (the newest
   version): matches until its 95 % interval is narrower than ±60 Elo, ladder against a
   round robin of all N bots continuing from the same settled history; how many of them it
   played, whether it then stood at its true place; when the ladder rested again.
2. Top 3: from scratch, matches until the top 3 are separated (``separated_top``), and
   whether they are the true top 3 in order: the ladder, a round robin, and the "open"
   ladder (settle width 0: it rests only once every neighbour pair is separated).
3. Accuracy: Kendall τ of the settled ladder's ranking against the true order, against a
   round robin of as many matches as the ladder played until it rested (the same run as 2);
   and after how many matches the round robin meets the same rule to rest.
4. Cost: one matchmaker decision with 500 entrants (synthetic standings whose intervals
   narrow as on the settled ladders of 3, unsettled; owners all distinct):
   ``next_tables(state, 1)`` with 7 tables in flight (a worker's top-up after a match), a
   top-up of 8, a newcomer's placement table, and a settled ladder; wall clock and CPU,
   median and p95, against the 50 ms target (judged on CPU p95).
5. Rest: ``next_tables`` on each settled ladder of 3 returns no table, and the state.

Sections 6 and 7 play no engine game: a field of ``--field`` bots of known Elo (normal, SD
200) whose games are simulated from the rating model itself (``model_pool``: Gumbel points,
so every comparison is Bradley–Terry at the true Elo), settled by the same ladder loop, then
newcomers of each of ``KINDS`` entering it one at a time (``--trials`` of each a seed, over
``--known-seeds`` seeds): a new bot, a new version of a field bot (its predecessor leaves;
its Elo the predecessor's plus a normal change of the prior's own SD), the same new
versions with the fit not told whose they are, and versions 400 Elo from their predecessor.

6. Placement: each newcomer's matches until its placement ends as the ladder's page says
   (no longer provisional, or the cap played), whether it was still provisional then, and
   its error |estimate − truth| (the truth centred over the fitted bots as the fit is);
   target (a): a new version's median error at most 60 Elo, after at most 12 matches.
7. Coverage: the same entries, each newcomer placed alone (the field as anchors) for 32
   matches; the share of 95 % intervals holding the truth after 4, 8, 16 and 32 of its
   matches, and the median error then; target (b): 93–97 % for new bots and new versions.
   Each target is printed PASS or FAIL.

Run: python benchmarks/ladder.py [--quick] [--seeds N] [--bots N] [--newcomer RANK]
       [--placement N] [--settle ELO] [--depth N] [--batch N]
       [--known-only] [--known-seeds N] [--trials N] [--field N]
``--quick``: 2 seeds, 8 bots, 20 timed calls, and 3 known-strength seeds of 4 newcomers a
kind (a smoke run, about a minute). ``--known-only``: sections 6 and 7 alone (about a
minute at the defaults, 1,600 newcomers). One core.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks.*, tests.*

import argparse  # noqa: E402
import itertools  # noqa: E402
import math  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from collections import Counter  # noqa: E402
from collections.abc import Callable, Iterator, Sequence  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402

import numpy as np  # noqa: E402

from arena.ladders.matchmaking import (  # noqa: E402
    Knobs,
    LadderState,
    next_tables,
    provisional,
    settled,
)
from arena.ratings import ELO_CENTER, ELO_SCALE, NO_DATA_HALF_WIDTH, Rating, fit  # noqa: E402
from arena.ratings.successors import SUCCESSOR_SD, starting_rating  # noqa: E402
from arena.tournaments.adaptive import SEATS, Ranked, Seats, overlaps, separated_top  # noqa: E402
from benchmarks.engine_pool import (  # noqa: E402
    ROTATIONS,
    Games,
    noise_levels,
    play_matches,
    round_robin,
)
from tests.ratings.synthetic import kendall_tau  # noqa: E402

DEPTH, BATCH = 8, 4  # the ladder's default depth; matches played between two refits
CAP = 3_000  # matches at most per run (a run that reaches it is reported as such)
PLACED_HALF_WIDTH = 60.0  # a newcomer is placed once its interval is narrower than this
TOP = 3
ENTRANTS = 500  # for the cost of a decision
TARGET_MS = 50.0
FIELD, FIELD_SD = 12, 200.0  # a field of known strength: its size, the spread of its Elo
# The newcomers entering it, in turn: a new bot; a new version of a field bot (its Elo the
# predecessor's plus a normal change of SD SUCCESSOR_SD, the prior's own); the same
# without the prior (the fit not told whose version it is); a version JUMP Elo away.
KINDS = ("new bot", "new version", "no prior", "jump")
JUMP = 400.0  # Elo: a "jump" is a new version this far from its predecessor (either way)
CHECKPOINTS = (4, 8, 16, 32)  # a newcomer's matches after which its interval is checked
ERROR_TARGET = 60.0  # Elo: the median error of a new version once placed, at most
COVERAGE_TARGET = (0.93, 0.97)  # of the 95% intervals


def half_width(r: Ranked | Rating) -> float:
    return max(r.elo - r.ci_low, r.ci_high - r.elo)


# Plays matches on tables of bots: (match seeds from rng, tables, first match's group)
# -> the games and their groups.
Pool = Callable[[np.random.Generator, Sequence[Sequence[int]], int], tuple[Games, list[int]]]


def engine(noises: Sequence[float]) -> Pool:
    """The engine pool's bots of these noises, in duplicate matches."""
    return lambda rng, tables, first: play_matches(rng, tables, first, noises)


@dataclass
class History:
    """The matches a schedule has played on the pool and the fit of all their games."""

    pool: Pool
    entrants: list[int]
    rng: np.random.Generator
    names: dict[int, str]  # the entrants' version ids: no hint of their strength
    played: list[list[int]] = field(default_factory=list)
    games: Games = field(default_factory=list)
    groups: list[int] = field(default_factory=list)
    ratings: dict[int, Rating] = field(default_factory=dict)
    successors: dict[int, int] = field(default_factory=dict)  # new version -> predecessor

    def play(self, tables: Sequence[Sequence[int]]) -> None:
        games, groups = self.pool(self.rng, tables, len(self.played))
        self.played += [list(t) for t in tables]
        self.games += games
        self.groups += groups
        self.ratings = fit(self.games, self.groups, successors=self.successors)

    def standings(self) -> list[Ranked]:
        """The entrants as ``ladder_state`` shows them: rated, starting at a predecessor's
        rating, or wide open at 1500."""
        wide = (ELO_CENTER, ELO_CENTER - NO_DATA_HALF_WIDTH, ELO_CENTER + NO_DATA_HALF_WIDTH, 0)
        rows = []
        for b in self.entrants:
            r = self.ratings.get(b)
            if r is None and self.successors.get(b) in self.ratings:
                r = starting_rating(self.ratings[self.successors[b]])
            name = self.names[b]
            rows.append(
                Ranked(name, r.elo, r.ci_low, r.ci_high, r.games) if r else Ranked(name, *wide)
            )
        return rows

    def ranking(self) -> list[Ranked]:
        return sorted(self.standings(), key=lambda r: (-r.elo, r.name))

    def order(self) -> list[int]:
        """The bots, best fitted first."""
        bot = {name: b for b, name in self.names.items()}
        return [bot[r.name] for r in self.ranking()]

    def half_width(self, bot: int) -> float:
        r = self.ratings.get(bot)
        return NO_DATA_HALF_WIDTH if r is None else half_width(r)

    def tau(self) -> float:
        """Kendall τ of the fitted order of the entrants against the true one (less noise
        is stronger; bots are numbered in that order)."""
        elo = [self.ratings[b].elo if b in self.ratings else ELO_CENTER for b in self.entrants]
        return kendall_tau(np.array(elo), -np.array(self.entrants, dtype=float))

    def top_separated(self) -> bool:
        return len(self.entrants) > TOP and separated_top(self.ranking(), TOP)

    def top_right(self) -> bool:
        return self.order()[:TOP] == sorted(self.entrants)[:TOP]

    def placed_right(self, bot: int) -> bool:
        """Whether ``bot`` has its true place among the entrants."""
        return self.order().index(bot) == sorted(self.entrants).index(bot)

    def fork(self, rng: np.random.Generator) -> History:
        """The same history, played on by another schedule with its own match seeds."""
        return History(
            self.pool,
            list(self.entrants),
            rng,
            self.names,
            list(self.played),
            list(self.games),
            list(self.groups),
            dict(self.ratings),
            dict(self.successors),
        )


@dataclass
class Ladder:
    """The ladder loop: top the queue up to ``depth`` tables, play ``batch``, refit."""

    history: History
    knobs: Knobs
    depth: int = DEPTH
    batch: int = BATCH
    queue: list[Seats] = field(default_factory=list)  # scheduled, not played
    matches: Counter[str] = field(default_factory=Counter)  # scheduled ones included
    seats: dict[str, list[int]] = field(default_factory=dict)
    meetings: Counter[frozenset[str]] = field(default_factory=Counter)
    anchors: frozenset[str] = frozenset()  # never placed (as the house bots)

    def state(self) -> LadderState:
        names = [self.history.names[b] for b in self.history.entrants]
        return LadderState(
            self.history.standings(),
            self.matches,
            {name: self.seats.get(name, [0] * SEATS) for name in names},
            self.meetings,
            list(self.queue),
            {name: f"owner {name}" for name in names},
            self.anchors,
        )

    def schedule(self, tables: Sequence[Seats]) -> None:
        for table in tables:
            self.matches.update(table)
            self.meetings.update(frozenset(p) for p in itertools.combinations(table, 2))
            for i, name in enumerate(table):
                self.seats.setdefault(name, [0] * SEATS)[i] += 1
        self.queue += tables

    def step(self) -> int:
        """One batch: the matches played (0: the matchmaker scheduled nothing, nothing was
        in flight: the ladder rests)."""
        want = self.depth - len(self.queue)
        if want > 0:
            self.schedule(next_tables(self.state(), want, self.knobs))
        batch, self.queue = self.queue[: self.batch], self.queue[self.batch :]
        if batch:
            bot = {name: b for b, name in self.history.names.items()}
            self.history.play([[bot[name] for name in t] for t in batch])
        return len(batch)

    def run(self, until: Callable[[], bool] = lambda: False, cap: int = CAP) -> int:
        """Matches played until ``until()`` holds after a batch, the ladder rests, or
        ``cap`` matches were played since the call."""
        played = 0
        while played < cap and not until():
            step = self.step()
            if not step:
                break
            played += step
        return played


def rr_run(history: History, seed: int, until: Callable[[], bool], cap: int = CAP) -> int:
    """Play the round robin of the whole pool on from ``history``, ``BATCH`` matches at a
    time, until ``until()``: the matches played (``cap`` when it never held)."""
    tables: Iterator[list[int]] = round_robin(len(history.entrants), seed)
    played = 0
    while played < cap and not until():
        history.play(list(itertools.islice(tables, BATCH)))
        played += BATCH
    return played


def version_ids(bots: Sequence[int], seed: int, first: int = 1) -> dict[int, str]:
    """Version ids for ``bots`` in a random order: the matchmaker breaks ties by name, and
    the pool's numbers are its true order."""
    order = np.random.default_rng([seed, 0]).permutation(len(bots))
    return {bots[i]: str(first + k) for k, i in enumerate(order.tolist())}


@dataclass(frozen=True)
class Entry:
    """One schedule after a newcomer entered: matches until its interval was narrow, how
    many of them it played, and whether it then stood at its true place."""

    matches: int
    its_matches: int
    right_place: bool


@dataclass(frozen=True)
class Placement:
    settled_after: int  # matches of the ladder of N-1 until it rested
    ladder: Entry
    round_robin: Entry
    rests_again: int  # the ladder's matches after the newcomer entered until it rested again


def placement(
    n: int,
    newcomer: int,
    seed: int,
    knobs: Knobs,
    depth: int = DEPTH,
    batch: int = BATCH,
    narrow_to: float = PLACED_HALF_WIDTH,
) -> Placement:
    """Matches until ``newcomer``'s interval is narrower than ±``narrow_to`` Elo after it
    enters a ladder settled on the other ``n - 1`` bots (as the newest version: the highest
    id): the ladder against a round robin of all n bots played on from the same history."""
    others = [b for b in range(n) if b != newcomer]
    names = version_ids(others, seed) | {newcomer: str(n)}
    pool = engine(noise_levels(n))
    history = History(pool, others, np.random.default_rng([seed, 1]), names)
    ladder = Ladder(history, knobs, depth, batch)
    settled_after = ladder.run()
    rr = history.fork(np.random.default_rng([seed, 3]))
    history.entrants.append(newcomer)
    history.rng = np.random.default_rng([seed, 2])
    ladder.queue = []  # a settled ladder has nothing in flight (the last batches ran dry)

    def entry(h: History, matches: int) -> Entry:
        its = sum(newcomer in t for t in h.played[len(h.played) - matches :])
        return Entry(matches, its, h.placed_right(newcomer))

    def narrow(h: History) -> Callable[[], bool]:
        return lambda: h.half_width(newcomer) < narrow_to

    in_ladder = entry(history, ladder.run(narrow(history)))
    rests_again = in_ladder.matches + ladder.run()
    rr.entrants = list(range(n))
    in_rr = entry(rr, rr_run(rr, seed, narrow(rr)))
    return Placement(settled_after, in_ladder, in_rr, rests_again)


@dataclass(frozen=True)
class Scratch:
    """A ladder from scratch and a round robin on the same pool."""

    ladder_top: int | None  # matches until the top 3 were separated (None: it rested first)
    ladder_top_right: bool
    open_top: int  # the same with the rule to rest on narrow intervals off (CAP: never)
    open_top_right: bool
    settled_after: int
    ladder_tau: float
    rests: int  # tables next_tables gives on the settled state (0 expected)
    state: str  # what that state was
    ranking: list[int]  # the settled ladder's, best first
    rr_top: int  # CAP: never
    rr_top_right: bool
    rr_tau: float  # after as many matches as the ladder played until it settled
    rr_rest: int  # matches until the round robin met the ladder's rule to rest (CAP: never)
    halves: list[tuple[int, float]]  # (games, half-width) of the settled ladder's bots


def from_scratch(
    n: int, seed: int, knobs: Knobs, depth: int = DEPTH, batch: int = BATCH, cap: int = CAP
) -> Scratch:
    """A ladder of ``n`` bots from its first match until it rests; the same ladder resting
    only when every neighbour pair is separated, until its top 3 are; a round robin."""
    bots = list(range(n))
    pool, names = engine(noise_levels(n)), version_ids(bots, seed)
    history = History(pool, list(bots), np.random.default_rng([seed, 4]), names)
    ladder = Ladder(history, knobs, depth, batch)
    top = ladder.run(history.top_separated, cap)
    separated, top_right = history.top_separated(), history.top_right()
    total = top + ladder.run(cap=cap - top)
    state = ladder.state()
    rests = len(next_tables(state, depth, knobs))
    standings = history.standings()
    if all(gap < 0 for gap in overlaps(history.ranking())):
        why = "every neighbour pair separated"
    elif settled(standings, knobs.settle_half_width):
        why = f"every neighbour pair separated or both within ±{knobs.settle_half_width:.0f}"
    else:
        why = "NOT settled"
    described = (
        f"{len(standings)} entrants, {len(history.played)} matches played, "
        f"{len(state.in_flight)} in flight, widest ±{max(map(half_width, standings)):.0f}: {why}"
    )

    wide_open = History(pool, list(bots), np.random.default_rng([seed, 6]), names)
    open_knobs = Knobs(knobs.placement_matches, 0.0, knobs.games_per_match)
    open_top = Ladder(wide_open, open_knobs, depth, batch).run(wide_open.top_separated, cap)

    rr = History(pool, list(bots), np.random.default_rng([seed, 5]), names)
    tables = round_robin(n, seed)
    rr_top: int | None = None
    rr_rest: int | None = None
    rr_top_right, rr_tau = False, math.nan
    while len(rr.played) < total or ((rr_top is None or rr_rest is None) and len(rr.played) < cap):
        short = total - len(rr.played)
        rr.play(list(itertools.islice(tables, short if 0 < short < BATCH else BATCH)))
        if len(rr.played) == total:
            rr_tau = rr.tau()
        if rr_top is None and rr.top_separated():
            rr_top, rr_top_right = len(rr.played), rr.top_right()
        if rr_rest is None and settled(rr.standings(), knobs.settle_half_width):
            rr_rest = len(rr.played)
    return Scratch(
        top if separated else None,
        top_right,
        open_top,
        wide_open.top_separated() and wide_open.top_right(),
        total,
        history.tau(),
        rests,
        described,
        history.order(),
        cap if rr_top is None else rr_top,
        rr_top_right,
        rr_tau,
        cap if rr_rest is None else rr_rest,
        [(r.games, half_width(r)) for r in standings],
    )


def synthetic_state(
    n: int,
    seed: int,
    scale: float,
    rounds: int = 12,
    in_flight: int = 0,
    newcomer: bool = False,
) -> LadderState:
    """A ladder of ``n`` entrants (``n`` a multiple of 4) after ``rounds`` rounds in which
    every entrant played one match, then a round's worth of random tables: Elo spread as a
    real field (SD 200), 95 % half-widths ``scale / sqrt(games)`` (as measured on the pool),
    each entrant its own owner; optionally one newcomer without games."""
    rng = np.random.default_rng(seed)
    names = [str(i) for i in range(1, n + 1)]
    rows = [rng.permutation(n).reshape(-1, SEATS) for _ in range(rounds)]
    rows.append(np.argsort(rng.random((n // SEATS, n)), axis=1)[:, :SEATS])
    tables = np.concatenate(rows)
    matches: Counter[str] = Counter()
    seats = {name: [0] * SEATS for name in names}
    meetings: Counter[frozenset[str]] = Counter()
    for row in tables.tolist():
        table = [names[i] for i in row]
        matches.update(table)
        meetings.update(frozenset(p) for p in itertools.combinations(table, 2))
        for i, name in enumerate(table):
            seats[name][i] += 1
    truth = rng.normal(ELO_CENTER, 200.0, n)
    standings = []
    for i, name in enumerate(names):
        games = 4 * matches[name]
        half = scale / math.sqrt(games)
        elo = float(truth[i] + rng.normal(0.0, half / 1.96))
        standings.append(Ranked(name, elo, elo - half, elo + half, games))
    if newcomer:
        name = str(n + 1)
        standings.append(Ranked(name, ELO_CENTER, *_wide(), 0))
        seats[name] = [0] * SEATS
        names.append(name)
    flight = [tuple(names[i] for i in row) for row in tables[len(tables) - in_flight :].tolist()]
    return LadderState(standings, matches, seats, meetings, flight, {m: m for m in names})


def _wide() -> tuple[float, float]:
    return ELO_CENTER - NO_DATA_HALF_WIDTH, ELO_CENTER + NO_DATA_HALF_WIDTH


def model_pool(elo: np.ndarray) -> Pool:
    """Bots of known strength: a game's points are each bot's Elo in log-odds plus Gumbel
    noise, so every pairwise comparison of a game follows Bradley–Terry at exactly those
    Elo (what the ratings estimate), four games a match. ``elo`` is read as they play (a
    newcomer's may be set after the pool is made)."""

    def play(
        rng: np.random.Generator, tables: Sequence[Sequence[int]], first: int
    ) -> tuple[Games, list[int]]:
        games: Games = []
        groups: list[int] = []
        for i, table in enumerate(tables):
            for _ in range(ROTATIONS):
                points = elo[list(table)] / ELO_SCALE + rng.gumbel(size=len(table))
                games.append(dict(zip(table, points.tolist(), strict=True)))
                groups.append(first + i)
        return games, groups

    return play


@dataclass(frozen=True)
class Trial:
    """One newcomer on a field of known strength: where its placement ended (it was no
    longer provisional, or it had played the cap), and how its intervals did after each
    of ``CHECKPOINTS`` matches of a longer placement."""

    kind: str  # one of KINDS
    placed_after: int  # its matches played when its placement ended
    error: float  # |estimate - truth| then, Elo
    provisional: bool  # still provisional then (placed by the cap)
    covered: dict[int, bool]  # after n of its matches: its 95% interval held the truth
    errors: dict[int, float]  # after n of its matches: |estimate - truth|


def known_field(
    seed: int, trials: int, knobs: Knobs, depth: int = DEPTH, batch: int = BATCH, size: int = FIELD
) -> list[Trial]:
    """A ladder of ``size`` bots of known Elo (normal, SD ``FIELD_SD``) played by the
    matchmaker until it rests, then ``trials`` newcomers of each of ``KINDS``, each entering
    that same settled ladder on its own (the predecessor of a new version leaves it)."""
    rng = np.random.default_rng([seed, 7])
    entering = trials * len(KINDS)
    truth = np.concatenate(
        [rng.normal(ELO_CENTER, FIELD_SD, size), np.zeros(entering)]
    )  # the newcomers' filled in below, before any of them plays
    field_bots = list(range(size))
    names = version_ids(field_bots, seed)
    base = History(model_pool(truth), field_bots, np.random.default_rng([seed, 8]), names)
    Ladder(base, knobs, depth, batch).run()
    out = []
    for i in range(entering):
        kind, bot = KINDS[i % len(KINDS)], size + i
        predecessor = None if kind == "new bot" else int(rng.integers(size))
        if predecessor is None:
            truth[bot] = rng.normal(ELO_CENTER, FIELD_SD)
        elif kind == "jump":
            truth[bot] = truth[predecessor] + JUMP * rng.choice([-1.0, 1.0])
        else:
            truth[bot] = truth[predecessor] + rng.normal(0.0, SUCCESSOR_SD)
        # the ladder as it is, then one placing the newcomer (alone) for CHECKPOINTS' matches
        longer = Knobs(max(CHECKPOINTS), 0.0, knobs.games_per_match)
        runs = []
        for knob, anchors in ((knobs, frozenset()), (longer, frozenset(names.values()))):
            history = base.fork(np.random.default_rng([seed, 9, i, len(runs)]))
            history.names = {**names, bot: str(size + 1 + i)}
            history.entrants.append(bot)
            if predecessor is not None:
                history.entrants.remove(predecessor)
            if predecessor is not None and kind != "no prior":
                history.successors[bot] = predecessor
            ladder = Ladder(history, knob, depth, batch, anchors=anchors)
            runs.append(_newcomer_run(ladder, bot, truth))
        (placed, error, unsure, _, _), (_, _, _, covered, errors) = runs
        out.append(Trial(kind, placed, error, unsure, covered, errors))
    return out


def _newcomer_run(
    ladder: Ladder, bot: int, truth: np.ndarray
) -> tuple[int, float, bool, dict[int, bool], dict[int, float]]:
    """Play ``ladder`` until ``bot``'s placement ends as the ladder's page says it does (no
    longer provisional, or the cap played): its matches then, error and whether it was still
    provisional; and, on the way, whether its interval held the truth after each of
    ``CHECKPOINTS`` of its matches, and its error then."""
    history, knobs = ladder.history, ladder.knobs
    start = len(history.played)
    covered: dict[int, bool] = {}
    errors: dict[int, float] = {}
    while True:
        if not ladder.step():
            raise RuntimeError("the ladder rested before the newcomer was placed")
        played = sum(bot in t for t in history.played[start:])
        r = history.ratings.get(bot)
        if r is None:
            continue
        fitted = sorted(history.ratings)
        centre = truth[fitted].mean() - ELO_CENTER
        true_elo = truth[bot] - centre
        if played in CHECKPOINTS:
            covered[played] = bool(r.ci_low <= true_elo <= r.ci_high)
            errors[played] = abs(r.elo - true_elo)
        me = Ranked(history.names[bot], r.elo, r.ci_low, r.ci_high, r.games)
        unsure = provisional(me, knobs.settle_half_width)
        if played >= knobs.placement_matches or not unsure:
            return played, abs(r.elo - true_elo), unsure, covered, errors


def coverage(trials: Sequence[Trial], matches: int) -> float:
    """The share of ``trials`` whose interval after ``matches`` of its matches held the
    truth (NaN: none was checked then)."""
    checked = [t.covered[matches] for t in trials if matches in t.covered]
    return sum(checked) / len(checked) if checked else math.nan


def within(value: float, low: float, high: float) -> str:
    return "PASS" if low <= value <= high else "FAIL"


def decision_times(
    state: LadderState, count: int, knobs: Knobs, calls: int
) -> list[tuple[float, float]]:
    """Milliseconds of ``calls`` calls of ``next_tables(state, count)``: wall clock and this
    thread's CPU (on a shared machine the wall clock also holds other processes' turns)."""
    times = []
    for _ in range(calls):
        wall, cpu = time.perf_counter(), time.thread_time()
        next_tables(state, count, knobs)
        times.append((1_000 * (time.perf_counter() - wall), 1_000 * (time.thread_time() - cpu)))
    return times


def _spread(values: Sequence[float], fmt: str = "{:.0f}") -> str:
    low, high = min(values), max(values)
    median = statistics.median(values)
    return f"median {fmt.format(median):>5}  range {fmt.format(low)}-{fmt.format(high)}"


def _p95(values: Sequence[float]) -> float:
    return float(np.percentile(values, 95))


def _at(count: int, cap: int = CAP) -> str:
    return f"{count}+" if count >= cap else str(count)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2 seeds, 8 bots, few timings")
    parser.add_argument("--seeds", type=int, help="seeds per figure (default 6)")
    parser.add_argument("--bots", type=int, default=8, help="the pool's size, 5 to 16")
    parser.add_argument("--newcomer", type=int, help="the entering bot's rank (default middle)")
    parser.add_argument("--placement", type=int, default=Knobs.placement_matches)
    parser.add_argument("--settle", type=float, default=Knobs.settle_half_width)
    parser.add_argument("--depth", type=int, default=DEPTH)
    parser.add_argument("--batch", type=int, default=BATCH)
    parser.add_argument("--known-seeds", type=int, help="seeds of 6 and 7 (default 20)")
    parser.add_argument("--trials", type=int, help="newcomers of each kind a seed (default 20)")
    parser.add_argument("--field", type=int, default=FIELD, help="known-strength field size")
    parser.add_argument(
        "--known-only", action="store_true", help="6 and 7 only (no engine games: a minute)"
    )
    args = parser.parse_args()
    n = 8 if args.quick else args.bots
    if not 5 <= n <= 16:
        parser.error("--bots is 5 to 16")
    seeds = range(args.seeds or (2 if args.quick else 6))
    newcomer = n // 2 if args.newcomer is None else args.newcomer
    knobs = Knobs(args.placement, args.settle, 4)
    depth, batch = args.depth, args.batch
    noises = noise_levels(n)
    started = time.perf_counter()
    load = os.getloadavg()
    known = range(args.known_seeds or (3 if args.quick else 20))
    trials = args.trials or (4 if args.quick else 20)
    if not args.known_only:
        print(
            f"ladder benchmark: {n} heuristic bots, noise {', '.join(map(str, noises))}; "
            f"{len(seeds)} seeds; placement {knobs.placement_matches} matches, settle "
            f"±{knobs.settle_half_width:.0f} Elo, {knobs.games_per_match} games a match; "
            f"depth {depth}, refit every {batch} matches (margin model); at most {CAP} "
            "matches a run"
        )
    print(
        f"load average at the start: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, "
        f"{os.cpu_count()} cores\n"
    )
    if args.known_only:
        print_known(known, trials, knobs, depth, batch, args.field)
        return
    print(
        f"1. Placement: a ladder settled on {n - 1} bots, then bot {newcomer} (noise "
        f"{noises[newcomer]}) enters; matches until its 95% interval is narrower than "
        f"±{PLACED_HALF_WIDTH:.0f} Elo"
    )
    places = [placement(n, newcomer, seed, knobs, depth, batch) for seed in seeds]
    for label, entries in (
        ("ladder", [p.ladder for p in places]),
        ("round robin", [p.round_robin for p in places]),
    ):
        counts = [e.matches for e in entries]
        print(
            f"   {label:<12} {_spread(counts)}  per seed {[_at(c) for c in counts]}  it played "
            f"{[e.its_matches for e in entries]}, at its true place then "
            f"{sum(e.right_place for e in entries)}/{len(seeds)}"
        )
    if any(e.its_matches < 2 for p in places for e in (p.ladder, p.round_robin)):
        print(
            "   (a bot seen in one match has a near-zero cluster-robust interval: that count "
            "says nothing of its place)"
        )
    ratio = statistics.median(p.ladder.matches / p.round_robin.matches for p in places)
    print(f"   ladder / round robin: median {ratio:.2f} of the matches (per seed ratios)")
    print(
        f"   the {n - 1}-bot ladders had rested after "
        f"{_spread([p.settled_after for p in places])} matches; with the newcomer they rested "
        f"again {_spread([p.rests_again for p in places])} matches after it entered\n"
    )

    scratch = [from_scratch(n, seed, knobs, depth, batch) for seed in seeds]
    print(f"2. Top {TOP}: from scratch, matches until the top {TOP} intervals are separated")
    tops = [s.ladder_top for s in scratch]
    found = [c for c in tops if c is not None]
    print(
        f"   {'ladder':<12} {_spread(found) if found else 'never':<26}  per seed "
        f"{[_at(c) if c is not None else 'rested' for c in tops]}  true top {TOP} in order "
        f"{sum(s.ladder_top_right for s in scratch if s.ladder_top)}/{len(seeds)}"
    )
    for label, counts, right in (
        ("round robin", [s.rr_top for s in scratch], [s.rr_top_right for s in scratch]),
        ("open ladder", [s.open_top for s in scratch], [s.open_top_right for s in scratch]),
    ):
        print(
            f"   {label:<12} {_spread(counts):<26}  per seed {[_at(c) for c in counts]}  "
            f"true top {TOP} in order {sum(right)}/{len(seeds)}"
        )
    print(
        "   (open ladder: the same matchmaker with settle_half_width 0, so it rests only when "
        "every neighbour pair is separated)"
    )
    if len(found) < len(tops):
        print(
            f"   ('rested': the ladder settled, every neighbour pair separated or both "
            f"intervals within ±{knobs.settle_half_width:.0f}, with the top {TOP} overlapping)"
        )
    ratios = [s.ladder_top / s.rr_top for s in scratch if s.ladder_top]
    if ratios:
        print(f"   ladder / round robin: median {statistics.median(ratios):.2f} of the matches")
    ratio = statistics.median(s.open_top / s.rr_top for s in scratch)
    print(f"   open ladder / round robin: median {ratio:.2f} of the matches")
    print()

    counts = [s.settled_after for s in scratch]
    print(
        f"3. Accuracy: Kendall tau against the true order once the ladder rests (after "
        f"{_spread(counts)} matches, per seed {[_at(c) for c in counts]})"
    )
    for label, taus in (
        ("ladder", [s.ladder_tau for s in scratch]),
        ("round robin", [s.rr_tau for s in scratch]),
    ):
        print(f"   {label:<12} {_spread(taus, '{:.3f}')}  per seed {[round(t, 3) for t in taus]}")
    print("   round robin: as many matches as the ladder played until it rested, same seed")
    counts = [s.rr_rest for s in scratch]
    print(
        f"   the round robin meets the ladder's rule to rest (settled()) after {_spread(counts)}"
        f" matches, per seed {[_at(c) for c in counts]}"
    )
    for i, s in enumerate(scratch):
        print(f"   settled ladder ranking (seed {i}): {s.ranking}")
    print()

    halves = [(g, h) for s in scratch for g, h in s.halves if g]
    scale = statistics.median(h * math.sqrt(g) for g, h in halves)
    calls = 20 if args.quick else 200
    width = knobs.settle_half_width
    rounds = max(knobs.placement_matches, round((scale / (1.5 * width)) ** 2 / SEATS))
    print(
        f"4. Cost: one decision with {ENTRANTS} entrants, owners distinct, after {rounds} "
        f"rounds of one match each and one of random tables ({(rounds + 1) * ENTRANTS // 4} "
        f"matches), 95% half-width {scale:.0f}/sqrt(games) as on the settled ladders above; "
        f"{calls} calls each over 5 such ladders; target <= {TARGET_MS:.0f} ms (CPU p95: the "
        f"wall clock also holds the turns of the machine's other processes)"
    )

    def ladders(scale: float, **options: object) -> list[LadderState]:
        return [synthetic_state(ENTRANTS, k, scale, rounds, **options) for k in range(5)]

    resting = 0.9 * width * math.sqrt(SEATS * rounds)  # every interval within the width
    for label, states, count in (
        ("next_tables(state, 1), 7 in flight", ladders(scale, in_flight=DEPTH - 1), 1),
        ("top-up of 8, none in flight", ladders(scale), 8),
        ("next_tables(state, 1), a newcomer", ladders(scale, newcomer=True), 1),
        ("next_tables(state, 8), settled", ladders(resting), 8),
    ):
        times = [t for st in states for t in decision_times(st, count, knobs, calls // len(states))]
        wall, cpu = [w for w, _ in times], [c for _, c in times]
        verdict = "within target" if _p95(cpu) <= TARGET_MS else "OVER TARGET"
        widths = [half_width(r) for st in states for r in st.standings if r.games]
        got = {len(next_tables(st, count, knobs)) for st in states}
        print(
            f"   {label:<36} wall median {statistics.median(wall):5.1f} p95 {_p95(wall):5.1f} ms"
            f", CPU median {statistics.median(cpu):5.1f} p95 {_p95(cpu):5.1f} ms  {verdict}  "
            f"(±{min(widths):.0f} to ±{max(widths):.0f}, tables {sorted(got)})"
        )
    print()

    print("5. Rest: next_tables(settled state, depth) on each settled ladder of 3")
    for i, s in enumerate(scratch):
        print(f"   seed {i}: {s.rests} tables from {s.state}")

    print()
    print_known(known, trials, knobs, depth, batch, args.field)

    load = os.getloadavg()
    print(
        f"\nload average at the end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; "
        f"total time {time.perf_counter() - started:.0f} s"
    )


def print_known(seeds: range, trials: int, knobs: Knobs, depth: int, batch: int, size: int) -> None:
    """Sections 6 and 7: newcomers on fields of known strength, their error once placed
    and the coverage of their intervals, each target judged PASS or FAIL."""
    print(
        f"6. Placement on fields of known strength: {len(seeds)} seeds, {size} bots (Elo "
        f"normal, SD {FIELD_SD:.0f}) settled by the matchmaker, then {trials} newcomers of "
        f"each kind a seed entering it one at a time; games simulated from the rating model "
        f"(Gumbel points: every comparison Bradley-Terry at the true Elo); placement "
        f"{knobs.placement_matches} matches at most, settle ±{knobs.settle_half_width:.0f}"
    )
    found = [t for seed in seeds for t in known_field(seed, trials, knobs, depth, batch, size)]
    print(
        f"   {'kind':<12} {'trials':>6}  {'placed after':>12}  {'provisional then':>16}"
        f"  {'|error| median':>14}  {'p90':>5}"
    )
    for kind in KINDS:
        rows = [t for t in found if t.kind == kind]
        placed = [t.placed_after for t in rows]
        errors = [t.error for t in rows]
        after = f"{statistics.median(placed):.0f} (max {max(placed)})"
        print(
            f"   {kind:<12} {len(rows):>6}  {after:>12}"
            f"  {sum(t.provisional for t in rows):>7}/{len(rows):<8}"
            f"  {statistics.median(errors):>14.1f}  {np.percentile(errors, 90):>5.0f}"
        )
    print(
        f"   new version: Elo its predecessor's + normal(0, {SUCCESSOR_SD:.0f}), the prior's "
        f"own spread; no prior: the same, the fit not told whose version it is; jump: "
        f"{JUMP:.0f} Elo from its predecessor, either way"
    )
    versions = [t for t in found if t.kind == "new version"]
    error = statistics.median(t.error for t in versions)
    worst = max(t.placed_after for t in versions)
    ok = error <= ERROR_TARGET and worst <= 12
    print(
        f"   (a) a new version's median |estimate - truth| once placed (after {worst} "
        f"matches at most): {error:.1f} Elo, target <= {ERROR_TARGET:.0f} after <= 12 "
        f"matches: {'PASS' if ok else 'FAIL'}\n"
    )

    print(
        f"7. Coverage of a newcomer's 95% interval after {', '.join(map(str, CHECKPOINTS))} of"
        f" its matches: the same entries, each newcomer placed alone for {max(CHECKPOINTS)} "
        "matches (the field's bots as anchors), the truth centred as the fit is"
    )
    print(f"   {'kind':<12} " + "".join(f"{m:>8}" for m in CHECKPOINTS))
    for kind in KINDS:
        rows = [t for t in found if t.kind == kind]
        print(f"   {kind:<12} " + "".join(f"{100 * coverage(rows, m):>7.1f}%" for m in CHECKPOINTS))
    judged = [t for t in found if t.kind in ("new bot", "new version")]
    low, high = COVERAGE_TARGET
    shares = [coverage(judged, m) for m in CHECKPOINTS]
    print(f"   {'(b) both':<12} " + "".join(f"{100 * c:>7.1f}%" for c in shares))
    print(
        f"   (b) new bots and new versions ({len(judged)} newcomers), target "
        f"{100 * low:.0f}-{100 * high:.0f}%: "
        + ", ".join(
            f"{m} matches {within(c, low, high)}" for m, c in zip(CHECKPOINTS, shares, strict=True)
        )
    )
    print("   median |estimate - truth| (Elo) after as many matches, the same runs:")
    for kind in KINDS:
        rows = [t for t in found if t.kind == kind]
        medians = [statistics.median(t.errors[m] for t in rows) for m in CHECKPOINTS]
        print(f"   {kind:<12} " + "".join(f"{e:>8.1f}" for e in medians))


if __name__ == "__main__":
    main()
