"""A line chart as SVG coordinates, so templates draw it without a chart library.

Axis labels sit at round values a few steps apart, never closer than a label is tall: on a
phone the chart shrinks to 60% and its labels are drawn larger (style.css), so labels that
merely fit at full size would run together there."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

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
    """``series``: [{"bot": label, "points": [[x, y], ...]}]; None when there is nothing."""
    xs = [p[0] for line in series for p in line["points"]]
    ys = [p[1] for line in series for p in line["points"]]
    if not xs:
        return None
    x_hi, (y_lo, y_hi) = max(xs) or 1, (min(ys) - 10, max(ys) + 10)

    def at(x: float, y: float) -> tuple[float, float]:
        px = LEFT + (WIDTH - LEFT - RIGHT) * x / x_hi
        py = HEIGHT - BOTTOM - (HEIGHT - TOP - BOTTOM) * (y - y_lo) / (y_hi - y_lo)
        return round(px, 1), round(py, 1)

    lines = []
    for i, line in enumerate(series):
        coords = [at(x, y) for x, y in line["points"]]
        text = " ".join(f"{x},{y}" for x, y in coords)
        dots = [(*c, x, y) for c, (x, y) in zip(coords, line["points"], strict=True)]
        lines.append(Line(line["bot"], COLOURS[i % len(COLOURS)], text, dots))
    y_ticks = [(v, at(0, v)[1]) for v in nice_ticks(y_lo, y_hi)]
    x_ticks = [(v, at(v, y_lo)[0]) for v in nice_ticks(0, x_hi) if v == int(v)]
    plot = (LEFT, WIDTH - RIGHT, TOP, HEIGHT - BOTTOM)
    return Chart(WIDTH, HEIGHT, *plot, lines, y_ticks, x_ticks, len(set(xs)))
