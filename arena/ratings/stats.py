"""Per-bot descriptive statistics: points per deal, call success, faults.

Input is plain data, one :class:`BotGameLine` per bot per game, so the module
does not care where results are stored.

Mean points per deal is the ratio estimator Σ points / Σ deals (games with
more deals weigh more).  Its 95 % interval is a normal approximation clustered
by ``group``: with cluster totals P_g, D_g and m = ΣP/ΣD,

    SE² = G/(G-1) · Σ_g (P_g − m·D_g)² / (Σ D)²

Lines with ``group=None`` are each their own cluster.  When every game has the
same number of deals and is its own cluster this is exactly the textbook
interval mean ± 1.96·s/√n over the per-game means.  Clustering by match keeps
the interval honest when games inside a match are correlated.  With fewer than
two clusters the interval is (-inf, inf); quantities with no data are NaN.
"""

import math
from collections.abc import Hashable, Iterable
from dataclasses import dataclass

Z95 = 1.959963984540054


@dataclass(frozen=True)
class BotGameLine:
    """One bot's result in one game.

    ``calls`` are the bids the bot made, ``calls_made`` those it fulfilled;
    ``faults`` counts protocol faults (timeouts, illegal moves, crashes).
    """

    bot: Hashable
    group: Hashable | None
    points: float
    deals: int
    calls_made: int
    calls: int
    faults: int


@dataclass(frozen=True)
class BotStats:
    """Aggregated statistics of one bot."""

    games: int
    deals: int
    mean_points_per_deal: float
    ci_low: float
    ci_high: float
    calls_made: int
    calls: int
    call_success_rate: float
    faults: int


def _check(line: BotGameLine) -> None:
    if not math.isfinite(line.points):
        raise ValueError(f"points must be finite: {line}")
    if line.deals < 0 or line.faults < 0 or not 0 <= line.calls_made <= line.calls:
        raise ValueError(f"inconsistent counts: {line}")


def _mean_ci(clusters: list[tuple[float, int]]) -> tuple[float, float, float]:
    """Ratio mean Σp/Σd and its clustered normal 95 % interval."""
    total_deals = sum(d for _, d in clusters)
    if total_deals == 0:
        return math.nan, -math.inf, math.inf
    mean = sum(p for p, _ in clusters) / total_deals
    g = len(clusters)
    if g < 2:
        return mean, -math.inf, math.inf
    ss = sum((p - mean * d) ** 2 for p, d in clusters)
    se = math.sqrt(g / (g - 1) * ss) / total_deals
    return mean, mean - Z95 * se, mean + Z95 * se


def _summarise(lines: list[BotGameLine]) -> BotStats:
    clusters: dict[Hashable, list[float]] = {}
    for i, line in enumerate(lines):
        key = ("line", i) if line.group is None else ("group", line.group)
        cell = clusters.setdefault(key, [0.0, 0])
        cell[0] += line.points
        cell[1] += line.deals
    mean, low, high = _mean_ci([(p, int(d)) for p, d in clusters.values()])
    calls = sum(x.calls for x in lines)
    made = sum(x.calls_made for x in lines)
    return BotStats(
        games=len(lines),
        deals=sum(x.deals for x in lines),
        mean_points_per_deal=mean,
        ci_low=low,
        ci_high=high,
        calls_made=made,
        calls=calls,
        call_success_rate=made / calls if calls else math.nan,
        faults=sum(x.faults for x in lines),
    )


def bot_stats(lines: Iterable[BotGameLine]) -> dict[Hashable, BotStats]:
    """Statistics per bot, from one line per bot per game."""
    per_bot: dict[Hashable, list[BotGameLine]] = {}
    for line in lines:
        _check(line)
        per_bot.setdefault(line.bot, []).append(line)
    return {bot: _summarise(bot_lines) for bot, bot_lines in per_bot.items()}
