"""Template filters: numbers with their unbounded and missing cases, rough durations,
moments as <time> elements (static/time.js shows them in the reader's time zone)."""

from __future__ import annotations

from datetime import UTC, datetime

from flask import Flask
from markupsafe import Markup, escape

from arena.readmodels.ladder import LadderView


def number(x: float | None, digits: int = 0, sign: bool = False) -> str:
    if x is None:
        return "–"
    return f"{x:+.{digits}f}" if sign else f"{x:.{digits}f}"


def interval(low: float | None, high: float | None, digits: int = 0) -> str:
    """``low…high``; an unbounded side is ∞."""
    lo = "-∞" if low is None else f"{low:.{digits}f}"
    hi = "∞" if high is None else f"{high:.{digits}f}"
    return f"{lo}…{hi}"


def bounded(low: float | None, high: float | None, digits: int = 0) -> str:
    """``low…high`` when the data bound both sides, else "too few games" (an interval
    running to infinity tells a reader nothing)."""
    return "too few games" if low is None or high is None else interval(low, high, digits)


def when(moment: str | datetime | None) -> Markup:
    """A stored moment as ``<time>``: UTC ISO in ``datetime`` and ``title``, the UTC minute as
    text until time.js writes it in the reader's zone (relative when recent). SQLite's
    times come back naive: they are UTC."""
    if not moment:
        return Markup("")
    at = datetime.fromisoformat(moment) if isinstance(moment, str) else moment
    at = (at if at.tzinfo else at.replace(tzinfo=UTC)).astimezone(UTC)
    iso = at.isoformat(timespec="seconds").replace("+00:00", "Z")
    text = at.strftime("%Y-%m-%d %H:%M UTC")
    return Markup(f'<time datetime="{iso}" title="{iso}">{escape(text)}</time>')


def percent(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.0f}%"


def duration(seconds: float) -> str:
    """Roughly: "under a minute", "about 5 min", "about 2 h"."""
    if seconds < 60:
        return "under a minute"
    if seconds < 90 * 60:
        return f"about {seconds / 60:.0f} min"
    return f"about {seconds / 3600:.0f} h"


def first_match(view: LadderView) -> str:
    """When a new version's first match in the ladder should start, as the end of a
    sentence (an estimate only while matches are queued and their length is known)."""
    if view.state == "paused":
        return "once an organiser resumes the ladder"
    wait = view.wait_s()
    return f"in {duration(wait)}" if wait else "as soon as a worker is free"


_SCRIPT_SAFE = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "'": "\\u0027"})


def json_in_script(text: str) -> Markup:
    """JSON text made safe inside <script>: those characters only occur in JSON strings,
    where the escape means the same (as Jinja's ``tojson`` does, without re-encoding)."""
    return Markup(text.translate(_SCRIPT_SAFE))


def register_filters(app: Flask) -> None:
    app.add_template_filter(number)
    app.add_template_filter(interval)
    app.add_template_filter(bounded)
    app.add_template_filter(when)
    app.add_template_filter(percent)
    app.add_template_filter(first_match)
