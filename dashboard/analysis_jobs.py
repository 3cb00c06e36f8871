"""Where an analysis asked for on a page or the API is worked out: one choice per app."""

from __future__ import annotations

import functools

from flask import current_app

from arena.analysis_runs import Dispatch
from arena.runtime import Runtime
from arena.store import Database
from arena.tournaments.background import start_command
from dashboard.submitting import database, runtime


def analysis_dispatch() -> Dispatch:
    """Celery workers when ``ARENA_BROKER_URL`` is set, else a process of its own per
    analysis (``arena analysis-job ID``), as an organiser's start runs a tournament."""
    if "arena_analyses" not in current_app.extensions:
        db, here = database(), runtime()
        chosen: Dispatch = functools.partial(_detached, db, here)
        if here.settings.broker_configured:
            from workers.client.analyses import CeleryAnalyses  # Celery only with a broker

            chosen = CeleryAnalyses(db)
        current_app.extensions["arena_analyses"] = chosen
    return current_app.extensions["arena_analyses"]


def _detached(db: Database, here: Runtime, analysis_id: int) -> int:
    return start_command(
        db, here, ["analysis-job", str(analysis_id)], f"analysis-{analysis_id}.log"
    )
