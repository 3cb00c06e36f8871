"""A line chart as SVG coordinates, so templates draw it without a chart library."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

WIDTH, HEIGHT, PAD = 640, 220, 36
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
    lines: list[Line]
    y_ticks: list[tuple[float, float]]  # (value, y)
    x_count: int


def line_chart(series: list[dict[str, Any]]) -> Chart | None:
    """``series``: [{"bot": label, "points": [[x, y], ...]}]; None when there is nothing."""
    xs = [p[0] for line in series for p in line["points"]]
    ys = [p[1] for line in series for p in line["points"]]
    if not xs:
        return None
    x_hi, (y_lo, y_hi) = max(xs) or 1, (min(ys) - 10, max(ys) + 10)

    def at(x: float, y: float) -> tuple[float, float]:
        px = PAD + (WIDTH - 2 * PAD) * x / x_hi
        py = HEIGHT - PAD - (HEIGHT - 2 * PAD) * (y - y_lo) / (y_hi - y_lo)
        return round(px, 1), round(py, 1)

    lines = []
    for i, line in enumerate(series):
        coords = [at(x, y) for x, y in line["points"]]
        text = " ".join(f"{x},{y}" for x, y in coords)
        dots = [(*c, x, y) for c, (x, y) in zip(coords, line["points"], strict=True)]
        lines.append(Line(line["bot"], COLOURS[i % len(COLOURS)], text, dots))
    ticks = [(round(v), at(0, v)[1]) for v in (y_lo + 10, (y_lo + y_hi) / 2, y_hi - 10)]
    return Chart(WIDTH, HEIGHT, lines, ticks, len(set(xs)))
