"""Sending the match analyses the dashboard is asked for to the Celery workers."""

from __future__ import annotations

from arena.store import Database
from workers.identity import sending_for
from workers.tasks import send_analysis


class CeleryAnalyses:
    """A ``Dispatch`` of ``arena.analysis_runs``: sends ``arena.analyse`` jobs stamped for
    ``db`` (a broker away: the analysis is sent again by the workers' recovery)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def __call__(self, analysis_id: int) -> bool:
        with sending_for(self.db):
            return send_analysis(analysis_id)
