"""The decision-level fair-play tests: at the decisions where the true deal and the seat's
knowledge part (``arena.analysis.hindsight``), does a bot follow the truth more often than
it should?

Memory (a bot that remembers a duplicate set's first game): its rate of following the truth
in the later games of its matches against the first games. An honest bot has no reason to
follow hidden cards more in one rotation than in another; a bot that knows them does so
from game 2 on. Only the decisions where it followed either the truth or the knowledge
count (trials), so a bot that plays worse in one game (a cold start) adds "neither"
answers, not truth ones. One-sided Fisher exact test on the 2x2 table.

Pair (two bots that share their hands while seated together): each one's rate of following
the best option given the *other's* hand, against its rate given any other tablemate's hand,
stratified by bot (Cochran-Mantel-Haenszel, one-sided): a colluder follows its partner's
hand, not the others'.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Trial:
    """One telling decision of ``bot`` that followed the truth or the knowledge.
    ``seen``: None when judged under the whole true deal, else the tablemate whose hand
    was added to the seat's knowledge."""

    match: Hashable
    bot: Hashable
    first: bool  # in its match's first game
    seen: Hashable | None
    truth: bool  # followed the truth (else the knowledge)


@dataclass(frozen=True)
class Table:
    """Truth-followed counts of the suspect group and of its baseline, and the test."""

    hits: int  # truth followed, suspect group (later games / the partner's hand)
    trials: int
    base_hits: int  # the baseline (first games / other tablemates' hands)
    base_trials: int
    p: float | None  # None: a group without trials
    least_p: float = 1.0  # the smallest p these margins allow (every truth in the suspect
    # group): a test that cannot reach the threshold does not count in it (Tarone)

    @property
    def rates(self) -> tuple[float, float]:
        return _rate(self.hits, self.trials), _rate(self.base_hits, self.base_trials)

    @property
    def estimate(self) -> float:
        """Suspect rate minus baseline rate."""
        a, b = self.rates
        return a - b if self.trials and self.base_trials else math.nan

    @property
    def se(self) -> float:
        a, b = self.rates
        if not (self.trials and self.base_trials):
            return math.nan
        return math.sqrt(a * (1 - a) / self.trials + b * (1 - b) / self.base_trials)


def memory_table(trials: Iterable[Trial], bot: Hashable) -> Table:
    """Later games against the first, under the whole true deal."""
    rows = [t for t in trials if t.bot == bot and t.seen is None]
    later = [t.truth for t in rows if not t.first]
    first = [t.truth for t in rows if t.first]
    return _fisher(sum(later), len(later), sum(first), len(first))


def pair_table(trials: Iterable[Trial], a: Hashable, b: Hashable) -> Table:
    """Each bot given the other's hand, against given any other tablemate's."""
    strata = []
    counts = [0, 0, 0, 0]
    rows = [t for t in trials if t.seen is not None]
    for bot, partner in ((a, b), (b, a)):
        mine = [t for t in rows if t.bot == bot]
        told = [t.truth for t in mine if t.seen == partner]
        other = [t.truth for t in mine if t.seen != partner]
        cell = (sum(told), len(told), sum(other), len(other))
        strata.append(cell)
        counts = [x + y for x, y in zip(counts, cell, strict=True)]
    extreme = [(min(n, h + bh), n, h + bh - min(n, h + bh), bn) for h, n, bh, bn in strata]
    least = _cmh(extreme)
    hits, n, base_hits, base_n = counts
    return Table(hits, n, base_hits, base_n, _cmh(strata), 1.0 if least is None else least)


def _fisher(hits: int, n: int, base_hits: int, base_n: int) -> Table:
    if not (n and base_n):
        return Table(hits, n, base_hits, base_n, None)
    k, total = hits + base_hits, n + base_n
    p = _hypergeom_upper(hits, total, k, n)
    return Table(hits, n, base_hits, base_n, p, _hypergeom_upper(min(n, k), total, k, n))


def _cmh(strata: list[tuple[int, int, int, int]]) -> float | None:
    """One-sided Cochran-Mantel-Haenszel p-value of suspect rate > baseline, over strata
    (hits, trials, base hits, base trials); None when no stratum has both groups."""
    excess = var = 0.0
    used = False
    for hits, n, base_hits, base_n in strata:
        total = n + base_n
        k = hits + base_hits
        if not (n and base_n) or total < 2:
            continue
        used = True
        excess += hits - n * k / total
        var += n * base_n * k * (total - k) / (total * total * (total - 1))
    if not used:
        return None
    if var <= 0:
        return 1.0 if excess <= 0 else 0.0
    z = (excess - 0.5) / math.sqrt(var)  # continuity-corrected
    return 0.5 * math.erfc(z / math.sqrt(2))


def _hypergeom_upper(x: int, total: int, k: int, n: int) -> float:
    """P(X >= x) for X hypergeometric: ``n`` draws from ``total`` with ``k`` successes."""
    top = min(n, k)
    if x <= max(0, n + k - total):
        return 1.0
    logs = [_log_pmf(i, total, k, n) for i in range(x, top + 1)]
    peak = max(logs)
    return min(1.0, math.exp(peak) * sum(math.exp(v - peak) for v in logs))


def _log_pmf(i: int, total: int, k: int, n: int) -> float:
    return _log_comb(k, i) + _log_comb(total - k, n - i) - _log_comb(total, n)


def _log_comb(n: int, r: int) -> float:
    return math.lgamma(n + 1) - math.lgamma(r + 1) - math.lgamma(n - r + 1)


def _rate(hits: int, n: int) -> float:
    return hits / n if n else math.nan
