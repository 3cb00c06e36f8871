"""Template filters: numbers with their unbounded and missing cases."""

from __future__ import annotations

from flask import Flask
from markupsafe import Markup


def number(x: float | None, digits: int = 0, sign: bool = False) -> str:
    if x is None:
        return "–"
    return f"{x:+.{digits}f}" if sign else f"{x:.{digits}f}"


def interval(low: float | None, high: float | None, digits: int = 0) -> str:
    """``low…high``; an unbounded side is ∞."""
    lo = "-∞" if low is None else f"{low:.{digits}f}"
    hi = "∞" if high is None else f"{high:.{digits}f}"
    return f"{lo}…{hi}"


def percent(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.0f}%"


_SCRIPT_SAFE = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "'": "\\u0027"})


def json_in_script(text: str) -> Markup:
    """JSON text made safe inside <script>: those characters only occur in JSON strings,
    where the escape means the same (as Jinja's ``tojson`` does, without re-encoding)."""
    return Markup(text.translate(_SCRIPT_SAFE))


def register_filters(app: Flask) -> None:
    app.add_template_filter(number)
    app.add_template_filter(interval)
    app.add_template_filter(percent)
