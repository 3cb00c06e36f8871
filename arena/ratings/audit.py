"""The fair-play audit: statistics that make the cheating no sandbox can rule out visible.

Two covert advantages are measured from stored game results (docs/audit.md has the why):

Rotation advantage (a bot that remembers the hands of a duplicate set's first game).  In a
match the same deals are replayed G times with the bots rotated a seat each game, so seat
``s`` holds the same hands in every game.  A bot's *own contrast* in a match is its points
per deal in the later games less in the first; 0 in expectation for an honest bot (nothing
sets its first game apart), positive for one that plays the later rotations with the hands
it saw.  Its card luck (its later seats' hands against its first seat's) is what the *same
hands' contrast* measures: the same difference for the other bots' points with the hands
it held in each game.  The rotation advantage in a match is own − β·same-hands, with β the
least-squares slope of own on same-hands over every bot and match of the audit (in
[0, 1]): β = 1 is the plain duplicate comparison, which removes all card luck but adds the
other bots' noise; where the hands decide little (pagat with the house bots: β ≈ 0.24)
a smaller β keeps that noise out.  Matches are the independent units (fresh seeds): the estimate is
the mean over the bot's matches, its p-value the one-sided Student t test of mean > 0.

Pair advantage (two bots sharing their hands while seated together).  Duplicate scoring
cannot see it (the pair gains in every rotation), so it compares the pair's results with
and without each other, adjusted for skill and company: the margin model's bot effects
(:mod:`arena.ratings.margin`) are fitted on every game, and a bot's *residual* in a match
is its mean per-deal margin against the table minus what the effects predict.  The pair
advantage is the mean of the pair's summed residuals in the matches where both sat,
minus each bot's mean residual in its matches without the other; raw margins would be
biased (two strong bots lose points to each other when together).  Its p-value is
one-sided, Student t with Welch–Satterthwaite degrees of freedom.

Decisions.  The same two questions asked of every telling decision instead of the points
(:mod:`arena.ratings.telling`): no card luck, so far fewer matches are needed.  These are
the first line; the points tests stay as the second.

A bot's points rotation test is flagged only where its decision test, if it has one, leans
to the truth as well (p <= ``LEANS_P``, far above the threshold): memory shows as following
the hidden cards where they matter, and a bot that only scores better after its first game
is one with a slow first game (a cold start, a timeout), which the points alone cannot tell
from memory.

Threshold.  One audit runs many tests; each is flagged when its p-value is at most
``FAMILY_ALPHA / m`` (Bonferroni), so the chance that an honest field shows any flag is at
most 1 %, whatever the number of bots and pairs.  m counts the tests with enough data
that could reach the threshold at all: a decision test whose counts cannot give a p-value
that small (its every trial a hit would not) cannot flag, so it does not raise the bar of
the others (Tarone's refinement; the bound holds as before).  A bot or pair is flagged
when any of its tests is.  A flag is evidence to look into, not proof.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from arena.ratings.games import Z95, sorted_unique, tables
from arena.ratings.margin import residuals
from arena.ratings.telling import Table, Trial, memory_table, pair_table

FAMILY_ALPHA = 0.01  # chance that an honest field shows any flag
LEANS_P = 0.05  # a decision test this low leans to the truth (corroborates, ``audits.suspects``)
MIN_MATCHES = 8  # a bot's matches before its rotation test (t needs a few degrees of freedom)
MIN_PAIR_MATCHES = 5  # matches together, and each bot's apart, before a pair test
NEEDS = (
    f"a rotation test needs {MIN_MATCHES} finished matches of the bot, a pair test "
    f"{MIN_PAIR_MATCHES} of the two together and {MIN_PAIR_MATCHES} of each without the other"
)


@dataclass(frozen=True)
class Seating:
    """One bot in one game of a match: its seat and points (in points, not tenths) over
    ``deals`` (at least one) deals."""

    match: Hashable
    game: int
    bot: Hashable
    seat: int
    points: float
    deals: int


@dataclass(frozen=True)
class Finding:
    """One test: ``bots`` is one bot (rotation) or two (pair). ``estimate`` and ``se`` are
    per deal (points; for a pair, margin against the table); ``p`` is None when there are
    too few matches (``matches``: the bot's, or the pair's together; ``apart``: each bot's
    without the other)."""

    kind: str  # "rotation" or "pair" (points); "decisions" or "decision pair"
    bots: tuple[Hashable, ...]
    matches: int
    apart: tuple[int, ...]
    estimate: float
    se: float
    p: float | None
    flagged: bool = False
    counts: Table | None = None  # a decision test's trials (its estimate: a rate difference)
    least_p: float = 0.0  # the smallest p-value its data could give

    @property
    def ci(self) -> tuple[float, float]:
        """The 95 % normal interval of the estimate."""
        return self.estimate - Z95 * self.se, self.estimate + Z95 * self.se


@dataclass(frozen=True)
class Audit:
    rotation: list[Finding]
    pairs: list[Finding]
    tests: int  # findings that count: the m of the threshold
    threshold: float  # flag at p <= threshold (FAMILY_ALPHA / tests)
    decisions: list[Finding] = field(default_factory=list)
    decision_pairs: list[Finding] = field(default_factory=list)

    @property
    def findings(self) -> list[Finding]:
        return self.decisions + self.rotation + self.decision_pairs + self.pairs


def audit(
    seatings: Iterable[Seating],
    pairs: Iterable[tuple[Hashable, Hashable]],
    trials: Iterable[Trial] = (),
    decision_pairs: Iterable[tuple[Hashable, Hashable]] = (),
) -> Audit:
    """Every bot's rotation tests (points, and decisions when ``trials`` has any) and the
    listed pairs' tests (by points: ``pairs``; by decisions: ``decision_pairs``), flagged
    at one threshold."""
    rows = list(seatings)
    rotation = [_rotation(bot, d) for bot, d in sorted(rotation_differences(rows).items())]
    pairs = list(pairs)
    residual = match_residuals(rows) if pairs else {}
    tested = [_pair(a, b, residual.get(a, {}), residual.get(b, {})) for a, b in pairs]
    told = list(trials)
    decisions = [_decisions(bot, told) for bot in sorted_unique([t.bot for t in told])]
    shared = [_decision_pair(a, b, told) for a, b in decision_pairs]
    m = counted_tests([*rotation, *tested, *decisions, *shared])
    threshold = FAMILY_ALPHA / max(m, 1)

    def flag(found: list[Finding]) -> list[Finding]:
        return [replace(f, flagged=f.p is not None and f.p <= threshold) for f in found]

    judged = {f.bots: f.p for f in decisions if f.p is not None}

    def corroborated(f: Finding) -> Finding:
        """A points rotation flag stands where the bot's decisions lean to the truth too, or
        where it has no decision test."""
        p = judged.get(f.bots)
        return replace(f, flagged=f.flagged and (p is None or p <= LEANS_P))

    rotation = [corroborated(f) for f in flag(rotation)]
    return Audit(rotation, flag(tested), m, threshold, flag(decisions), flag(shared))


def counted_tests(found: Sequence[Finding]) -> int:
    """The least m such that at most m tests could reach ``FAMILY_ALPHA / m`` (each test
    with a p-value whose ``least_p`` is that small): Tarone's count, at most the number of
    tests with a p-value."""
    least = sorted(f.least_p for f in found if f.p is not None)
    for m in range(1, len(least) + 1):
        if sum(q <= FAMILY_ALPHA / m for q in least) <= m:
            return m
    return len(least)


def _decisions(bot: Hashable, trials: list[Trial]) -> Finding:
    table = memory_table(trials, bot)
    matches = len({t.match for t in trials if t.bot == bot and t.seen is None})
    return _counted("decisions", (bot,), matches, (), table)


def _decision_pair(a: Hashable, b: Hashable, trials: list[Trial]) -> Finding:
    table = pair_table(trials, a, b)
    together = len({t.match for t in trials if t.bot in (a, b) and t.seen in (a, b)})
    return _counted("decision pair", (a, b), together, (), table)


def _counted(
    kind: str, bots: tuple[Hashable, ...], matches: int, apart: tuple[int, ...], table: Table
) -> Finding:
    return Finding(
        kind, bots, matches, apart, table.estimate, table.se, table.p, False, table, table.least_p
    )


def rotation_differences(rows: Sequence[Seating]) -> dict[Hashable, list[float]]:
    """Per bot, its rotation advantage in each match of two games or more (points per
    deal): its own contrast less ``luck_share`` times the same hands' contrast."""
    contrasts = rotation_contrasts(rows)
    beta = luck_share(contrasts)
    return {bot: [own - beta * par for own, par in c] for bot, c in contrasts.items()}


def rotation_contrasts(rows: Sequence[Seating]) -> dict[Hashable, list[tuple[float, float]]]:
    """Per bot and match (in match order): (its points a deal in the later games less in
    the first game, the same for the other bots' points with the hands it held in those
    games). Matches of one game have none."""
    if not rows:
        return {}
    matches, m = _codes([r.match for r in rows])
    bots, b = _codes([r.bot for r in rows])
    g = np.array([r.game for r in rows])
    p = np.array([r.points / r.deals for r in rows])
    seat = m * 4 + np.array([r.seat for r in rows])  # a seat of a match: the same hands
    total, count = np.bincount(seat, p, 4 * len(matches)), np.bincount(seat)
    others = count[seat] - 1
    same = (total[seat] - p) / np.maximum(others, 1)
    first = np.full(len(matches), np.iinfo(np.int64).max)
    np.minimum.at(first, m, g)
    opening = g == first[m]
    keys, cell = np.unique(m * len(bots) + b, return_inverse=True)
    late = (~opening) & (others > 0)

    def per_cell(values: np.ndarray, where: np.ndarray) -> np.ndarray:
        return np.bincount(cell, np.where(where, values, 0.0), len(keys))

    n_late = per_cell(np.ones(len(p)), late)
    ok = (n_late > 0) & (per_cell(np.ones(len(p)), opening & (others > 0)) == 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        own = per_cell(p, late) / n_late - per_cell(p, opening)
        par = per_cell(same, late) / n_late - per_cell(same, opening)
    out: dict[Hashable, list[tuple[float, float]]] = defaultdict(list)
    for key, mine, theirs in zip(
        keys[ok].tolist(), own[ok].tolist(), par[ok].tolist(), strict=True
    ):
        out[bots[key % len(bots)]].append((mine, theirs))
    return dict(out)


def _codes(values: list[Hashable]) -> tuple[list[Hashable], np.ndarray]:
    """The distinct values in canonical order and each value's number among them."""
    distinct = sorted_unique(values)
    index = {v: i for i, v in enumerate(distinct)}
    return distinct, np.array([index[v] for v in values], dtype=np.int64)


def luck_share(contrasts: dict[Hashable, list[tuple[float, float]]]) -> float:
    """How much of a bot's contrast the same hands' contrast predicts: the least-squares
    slope over every bot and match, in [0, 1]; 1 (the plain duplicate comparison) when
    there are too few to fit it."""
    pairs = np.array([c for found in contrasts.values() for c in found]).reshape(-1, 2)
    if len(pairs) < MIN_MATCHES:
        return 1.0
    own, par = pairs[:, 0] - pairs[:, 0].mean(), pairs[:, 1] - pairs[:, 1].mean()
    spread = float(par @ par)
    if not spread > 0:
        return 1.0
    return min(1.0, max(0.0, float(own @ par) / spread))


def match_residuals(rows: Sequence[Seating]) -> dict[Hashable, dict[Hashable, float]]:
    """Per bot and match, its mean per-deal margin against the table minus what the margin
    model's bot effects (fitted on all ``rows``) predict for that company."""
    games: dict[tuple[Hashable, int], dict[Hashable, float]] = defaultdict(dict)
    for r in rows:
        games[r.match, r.game][r.bot] = r.points / r.deals
    played = list(games)
    t = tables([games[k] for k in played], [match for match, _ in played])
    used, resid = residuals(t)
    names = sorted_unique(match for match, _ in played)  # as ``tables`` numbers the groups
    game, col = np.nonzero(used)
    n = len(t.bots)
    cells, cell = np.unique(t.group[game] * n + t.bot[game, col], return_inverse=True)
    mean = np.bincount(cell, resid[game, col]) / np.bincount(cell)
    out: dict[Hashable, dict[Hashable, float]] = defaultdict(dict)
    for key, value in zip(cells.tolist(), mean.tolist(), strict=True):
        out[t.bots[key % n]][names[key // n]] = value
    return dict(out)


def _rotation(bot: Hashable, differences: list[float]) -> Finding:
    mean, se, p = _one_sample(differences, MIN_MATCHES)
    return Finding("rotation", (bot,), len(differences), (), mean, se, p)


def _pair(
    a: Hashable, b: Hashable, ra: dict[Hashable, float], rb: dict[Hashable, float]
) -> Finding:
    together = [ra[m] + rb[m] for m in ra.keys() & rb.keys()]
    apart_a = [v for m, v in ra.items() if m not in rb]
    apart_b = [v for m, v in rb.items() if m not in ra]
    samples = (together, apart_a, apart_b)
    apart = (len(apart_a), len(apart_b))
    means = [float(np.mean(x)) if x else math.nan for x in samples]
    estimate = means[0] - means[1] - means[2]
    if min(len(x) for x in samples) < MIN_PAIR_MATCHES:
        return Finding("pair", (a, b), len(together), apart, estimate, math.nan, None)
    parts = [float(np.var(x, ddof=1)) / len(x) for x in samples]
    se = math.sqrt(sum(parts))
    df = sum(parts) ** 2 / sum(v**2 / (len(x) - 1) for v, x in zip(parts, samples, strict=True))
    return Finding("pair", (a, b), len(together), apart, estimate, se, _upper_p(estimate, se, df))


def _one_sample(values: list[float], minimum: int) -> tuple[float, float, float | None]:
    """Mean, its standard error, and the one-sided t p-value of mean > 0 (None: too few)."""
    n = len(values)
    mean = float(np.mean(values)) if values else math.nan
    if n < max(minimum, 2):
        return mean, math.nan, None
    se = float(np.std(values, ddof=1)) / math.sqrt(n)
    return mean, se, _upper_p(mean, se, n - 1)


def _upper_p(estimate: float, se: float, df: float) -> float:
    """P(T ≥ estimate / se) for Student t with ``df`` degrees of freedom."""
    if not se > 0:  # every value equal: no spread to test against
        return 0.0 if estimate > 0 else 1.0
    return t_upper_tail(estimate / se, df)


def t_upper_tail(t: float, df: float) -> float:
    """P(T ≥ t), T Student with ``df`` (real, > 0) degrees of freedom."""
    tail = 0.5 * _betainc(df / 2, 0.5, df / (df + t * t))
    return tail if t >= 0 else 1.0 - tail


def _betainc(a: float, b: float, x: float) -> float:
    """The regularised incomplete beta I_x(a, b) (continued fraction, Numerical Recipes)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    if x < (a + 1) / (a + b + 2):
        return math.exp(log_front) * _beta_fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * _beta_fraction(b, a, 1.0 - x) / b


def _beta_fraction(a: float, b: float, x: float) -> float:
    """Lentz's evaluation of the incomplete beta's continued fraction."""
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        for num in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h
