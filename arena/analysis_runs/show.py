"""Analyses as the API and the command line show them: plain JSON-able data.

A list shows each analysis's status, progress and summary (from its columns); one analysis
shows its whole result once done (``arena.analysis.Analysis.to_dict``: every decision with
the value of each legal option). The record they judge is public once the match is done,
so what they show is too; asking for one is what is restricted (``request``)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from arena.store import get_match
from arena.store.analyses import analyses_of, get_analysis
from arena.store.models import MatchAnalysis, as_utc


def listed(row: MatchAnalysis) -> dict[str, Any]:
    """One analysis without its verdicts."""
    done = row.status == "done"
    return {
        "id": row.id,
        "match_id": row.match_id,
        "entrant": row.entrant,
        "bot_version_id": row.bot_version_id,
        "samples": row.samples,
        "seed": row.seed,
        "status": row.status,
        "progress": {"done": row.progress_done, "total": row.progress_total},
        "requested_at": _when(row.requested_at),
        "started_at": _when(row.started_at),
        "finished_at": _when(row.finished_at),
        "reason": row.reason,
        "summary": _summary(row) if done else None,
    }


def _summary(row: MatchAnalysis) -> dict[str, Any]:
    return {
        "decisions": row.decisions,
        "mean_loss": row.mean_loss,
        "mean_loss_se": row.mean_loss_se,
        "call_loss": row.call_loss,
        "card_loss": row.card_loss,
        "labels": {
            "inaccuracy": row.inaccuracies,
            "mistake": row.mistakes,
            "blunder": row.blunders,
        },
    }


def _when(moment: datetime | None) -> str | None:
    return None if moment is None else as_utc(moment).isoformat(timespec="seconds")


def match_analyses(s: Session, match_id: int) -> list[dict[str, Any]]:
    """The analyses of a match (``StoreError`` for an unknown match)."""
    get_match(s, match_id)
    return [listed(row) for row in analyses_of(s, match_id)]


def analysis_detail(s: Session, analysis_id: int) -> dict[str, Any]:
    """One analysis with its ``result`` (None until it is done)."""
    row = get_analysis(s, analysis_id)
    return {**listed(row), "result": row.result if row.status == "done" else None}
