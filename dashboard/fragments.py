"""Rendered standings tables, cached like the standings themselves.

A 50-bot head-to-head matrix is 2,500 cells: rendering it costs more than every query of
the page together, and it only changes when a result of its tournament arrives. So the
HTML of the standings and the matrix is kept per (tournament, results version) too.
"""

from __future__ import annotations

from collections.abc import Callable

from markupsafe import Markup

from arena.tournaments.cache import CACHE, Scope
from dashboard.db import session


def cached_html(kind: str, scope: Scope, render: Callable[[], str]) -> Markup:
    """``render()`` output, made once per results version of ``scope``."""
    return Markup(CACHE.get(session(), f"html:{kind}", scope, render))
