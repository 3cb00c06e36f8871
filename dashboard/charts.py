"""A line chart as SVG coordinates, so templates draw it without a chart library; a line
may carry a band (its 95% interval, say) drawn under it.

Axis labels sit at round values a few steps apart, never closer than a label is tall: on a
phone the chart shrinks to 60% and its labels are drawn larger (style.css), so labels that
merely fit at full size would run together there."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import groupby
from typing import Any

from arena.readmodels.bots import VersionRatings

WIDTH, HEIGHT = 640, 240
LEFT, RIGHT, TOP, BOTTOM = 56, 16, 14, 44  # room for the Elo labels and the matches axis
MAX_TICKS = 5
STEPS = (1, 2, 5)  # times a power of ten
COLOURS = ("#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#ca8a04", "#db2777")


@dataclass(frozen=True)
class Line:
    label: str
    colour: str
    points: str  # "x,y x,y ..." for <polyline>
    dots: list[tuple[float, float, float, float]]  # (px, py, x, y): a marker per point
    bands: list[str]  # "x,y ..." for <polygon>: one per run of points bounded on both sides


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    left: int  # the plot's edges, in the SVG's units
    right: int
    top: int
    bottom: int
    lines: list[Line]
    y_ticks: list[tuple[float, float]]  # (Elo, y)
    x_ticks: list[tuple[float, float]]  # (matches done, x)
    x_count: int


def nice_ticks(low: float, high: float) -> list[float]:
    """Round values from ``low`` to ``high`` (within them), at most ``MAX_TICKS``."""
    span = max(high - low, 1e-9)
    power = 10 ** math.floor(math.log10(span))
    steps = (k * p for p in (power / 10, power, power * 10) for k in STEPS)
    step = next((s for s in steps if span / s < MAX_TICKS), span)
    first = math.ceil(low / step) * step
    return [first + i * step for i in range(int((high - first) / step + 1e-9) + 1)]


def line_chart(series: list[dict[str, Any]]) -> Chart | None:
    """``series``: [{"bot": label, "points": [[x, y], ...], "band": [[x, low, high], ...]}]
    ("band" is optional; a None bound leaves a gap in it); None when there is nothing."""
    xs = [p[0] for line in series for p in line["points"]]
    ys = [p[1] for line in series for p in line["points"]]
    if not xs:
        return None
    ys += [
        v for line in series for _, *sides in line.get("band", []) for v in sides if v is not None
    ]
    x_hi, (y_lo, y_hi) = max(xs) or 1, (min(ys) - 10, max(ys) + 10)

    def at(x: float, y: float) -> tuple[float, float]:
        px = LEFT + (WIDTH - LEFT - RIGHT) * x / x_hi
        py = HEIGHT - BOTTOM - (HEIGHT - TOP - BOTTOM) * (y - y_lo) / (y_hi - y_lo)
        return round(px, 1), round(py, 1)

    lines = []
    for i, line in enumerate(series):
        coords = [at(x, y) for x, y in line["points"]]
        dots = [(*c, x, y) for c, (x, y) in zip(coords, line["points"], strict=True)]
        bands = _bands(line.get("band", []), at)
        lines.append(Line(line["bot"], COLOURS[i % len(COLOURS)], _svg(coords), dots, bands))
    y_ticks = [(v, at(0, v)[1]) for v in nice_ticks(y_lo, y_hi)]
    x_ticks = [(v, at(v, y_lo)[0]) for v in nice_ticks(0, x_hi) if v == int(v)]
    plot = (LEFT, WIDTH - RIGHT, TOP, HEIGHT - BOTTOM)
    return Chart(WIDTH, HEIGHT, *plot, lines, y_ticks, x_ticks, len(set(xs)))


def _bands(band: list[list[Any]], at: Callable[[float, float], tuple[float, float]]) -> list[str]:
    """The band as polygons, one per run of points bounded on both sides: along the high
    side, back along the low one (one point alone: a vertical bar)."""
    runs = [list(run) for bounded, run in groupby(band, lambda p: None not in p) if bounded]
    return [
        _svg([at(x, high) for x, _, high in run] + [at(x, low) for x, low, _ in reversed(run)])
        for run in runs
    ]


def _svg(coords: list[tuple[float, float]]) -> str:
    return " ".join(f"{x},{y}" for x, y in coords)


def version_series(versions: Sequence[VersionRatings]) -> list[dict[str, Any]]:
    """A bot's versions in one tournament or ladder as ``line_chart`` series: each
    snapshot's Elo with its 95% interval, against the matches done there."""
    return [
        {
            "bot": f"version {v.version}",
            "points": [[step.done, step.elo] for step in v.steps],
            "band": [[step.done, step.ci_low, step.ci_high] for step in v.steps],
        }
        for v in versions
    ]
