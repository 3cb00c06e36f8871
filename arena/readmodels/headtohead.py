"""Head-to-head: the row bot's mean point margin over the column bot in the games they shared.

The margin of one game is the difference of the two game totals, in points. Games in a
match share deals, so the 95 % interval is clustered by match (the same ratio-estimator
interval as points per deal in :mod:`arena.ratings.stats`).
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass

from arena.store import GameRows

Z95 = 1.959963984540054


@dataclass(frozen=True)
class Cell:
    """``sign``: +1 or -1 when the interval excludes 0 (the row bot is better or worse)."""

    margin: float
    low: float | None
    high: float | None
    games: int
    sign: int


def head_to_head(rows: GameRows) -> dict[tuple[int, int], Cell]:
    """Cells keyed (row bot, column bot), both directions."""
    sums: dict[tuple[int, int], dict[int, list[float]]] = defaultdict(dict)
    for (match_id, _), game in zip(rows.keys, rows.games, strict=True):
        bots = sorted(game)
        for i, a in enumerate(bots):
            for b in bots[i + 1 :]:
                cluster = sums[a, b].setdefault(match_id, [0.0, 0])
                cluster[0] += (game[a] - game[b]) / 10
                cluster[1] += 1
    cells: dict[tuple[int, int], Cell] = {}
    for (a, b), clusters in sums.items():
        cell = _cell(list(clusters.values()))
        cells[a, b] = cell
        cells[b, a] = _mirror(cell)
    return cells


def _cell(clusters: list[list[float]]) -> Cell:
    total = sum(c[0] for c in clusters)
    n = sum(int(c[1]) for c in clusters)
    mean = total / n
    groups = len(clusters)
    if groups < 2:
        return Cell(mean, None, None, n, 0)
    var = groups / (groups - 1) * sum((m - mean * k) ** 2 for m, k in clusters) / n**2
    half = Z95 * math.sqrt(var)
    low, high = mean - half, mean + half
    sign = 1 if low > 0 else -1 if high < 0 else 0
    return Cell(mean, low, high, n, sign)


def _mirror(cell: Cell) -> Cell:
    low = None if cell.high is None else -cell.high
    high = None if cell.low is None else -cell.low
    return Cell(-cell.margin, low, high, cell.games, -cell.sign)
