"""Is a new version better than the old one, and how sure: a sequential test on paired
matches (``arena.comparisons``).

Each pair is two matches on the same deals, in the same seat, against the same opponents,
one with each version; its sample is the candidate's points a deal minus the baseline's.
Pairs are independent, so their mean is near normal, and two sequential probability ratio
tests on it (Wald's, with the variance estimated from the pairs) run side by side: Δ = +δ
against Δ = 0 ("better") and Δ = −δ against Δ = 0 ("worse"). Both accepting Δ = 0 means
the versions are within δ of each other ("not separated"). At the cap undecided, the
95 % interval of Δ decides: above 0 "better", below "worse", else "not separated".
Each test's error rates are α (a verdict for a difference that is not there) and β (a
difference of δ missed), at the stated bounds ln(β/(1−α)) and ln((1−β)/α).

Pure: numbers in, numbers out.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

MIN_PAIRS = 4  # before this many pairs the variance estimate is too rough to stop on
# Points a deal vary by a few points; a run of identical pairs (two copies of one bot) must
# not read as a variance of 0, which would make any difference infinitely sure.
VARIANCE_FLOOR = 0.05
Z95 = 1.959964


@dataclass(frozen=True)
class Bounds:
    """The test's hypotheses and error rates; ``cap``: pairs at most."""

    delta: float = 0.5
    alpha: float = 0.05
    beta: float = 0.05
    cap: int = 40

    @property
    def lower(self) -> float:
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        return math.log((1 - self.beta) / self.alpha)


@dataclass(frozen=True)
class Summary:
    """What the pairs so far say: Δ points a deal ± its 95 % interval, both log-likelihood
    ratios, the share of pairs the candidate won as an Elo difference, and the verdict
    (None: not yet decided)."""

    pairs: int
    delta: float
    half_width: float | None  # None before two pairs
    llr_better: float
    llr_worse: float
    elo: float | None
    elo_half_width: float | None
    verdict: str | None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Summary:
        return cls(**data)


def summarise(diffs: Sequence[float], bounds: Bounds) -> Summary:
    """The test after ``diffs`` (one per pair, points a deal, candidate minus baseline)."""
    n = len(diffs)
    mean = sum(diffs) / n if n else 0.0
    variance = sum((d - mean) ** 2 for d in diffs) / (n - 1) if n > 1 else math.inf
    variance = max(variance, VARIANCE_FLOOR)
    half = Z95 * math.sqrt(variance / n) if n > 1 else None
    scale = n * bounds.delta / variance
    better = scale * (mean - bounds.delta / 2)
    worse = scale * (-mean - bounds.delta / 2)
    elo, elo_half = _pair_elo(diffs)
    verdict = _verdict(n, better, worse, bounds)
    if verdict is None and n >= bounds.cap:
        verdict = _at_cap(mean, half)
    return Summary(n, mean, half, better, worse, elo, elo_half, verdict)


def _verdict(n: int, better: float, worse: float, bounds: Bounds) -> str | None:
    if n >= MIN_PAIRS:
        if better >= bounds.upper:
            return "better"
        if worse >= bounds.upper:
            return "worse"
        if better <= bounds.lower and worse <= bounds.lower:
            return "not separated"
    return None


def _at_cap(mean: float, half: float | None) -> str:
    """The cap reached undecided (noisy pairs): the 95 % interval says, as a test of that
    many pairs would; "not separated" where it holds 0."""
    if half is not None and mean - half > 0:
        return "better"
    if half is not None and mean + half < 0:
        return "worse"
    return "not separated"


def _pair_elo(diffs: Sequence[float]) -> tuple[float | None, float | None]:
    """The share of pairs the candidate won (a tie counts half) as an Elo difference, with
    the 95 % interval of the share carried over (None before any pair; a share of 0 or 1
    is taken as half a pair from it, so the figure stays finite)."""
    n = len(diffs)
    if not n:
        return None, None
    wins = sum(1.0 if d > 0 else 0.5 if d == 0 else 0.0 for d in diffs)
    share = min(max(wins / n, 0.5 / n), 1 - 0.5 / n)
    spread = Z95 * math.sqrt(share * (1 - share) / n)
    low, high = max(share - spread, 0.5 / n), min(share + spread, 1 - 0.5 / n)
    return _elo(share), (_elo(high) - _elo(low)) / 2


def _elo(share: float) -> float:
    return 400 * math.log10(share / (1 - share))
