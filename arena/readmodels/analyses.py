"""Match analyses as the pages, the API and the command line show them: one analysis as
JSON-able data (its status, progress and summary from its columns; its whole result once
done); per entrant of a match its analyses and the results the replay viewer draws; per bot
its mean loss per decision across its analysed matches, a measure of its strength apart
from the ratings. The record they judge is public once the match is done, so what they show
is too; asking for one is what is restricted (``arena.analysis_runs.request``).

An entrant analysed more than once (other samples or seeds, asked for through the API or
the command line) counts once: by its analysis with the most samples, the newest of those.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.analysis import DEFAULT_SAMPLES, LABELS
from arena.readmodels.bots import shown_version
from arena.store import Bot, BotVersion, StoreError, get_match
from arena.store.analyses import analyses_of, get_analysis
from arena.store.models import MatchAnalysis, as_utc

ANALYSED_MATCHES = 50  # the newest analysed matches the bot page lists
Z95 = 1.96
PARTS = ("overall", "calls", "cards")  # of ``Analysis.summary``


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


@dataclass(frozen=True)
class EntrantAnalyses:
    """One entrant of a match and its analyses."""

    entrant: int
    bot: str  # the seat's bot and version ("alpha@1"; a house bot its name)
    bot_id: int
    owner_id: int | None  # its owner may ask for an analysis (and organisers)
    analyses: list[dict[str, Any]]  # ``listed``, newest first
    # the analysis the page asks for (default samples, seed 0) is queued, running or done:
    # asking again would only find it
    asked: bool


def entrant_analyses(s: Session, match_id: int) -> list[EntrantAnalyses]:
    """Every entrant of the match, in seat order, with its analyses (``StoreError`` for an
    unknown match)."""
    match = get_match(s, match_id)
    versions = {
        v.id: v for v in s.scalars(select(BotVersion).where(BotVersion.id.in_(match.seats)))
    }
    rows = analyses_of(s, match_id)
    entrants = []
    for entrant, version_id in enumerate(match.seats):
        version = versions[version_id]
        mine = [row for row in rows if row.entrant == entrant]
        asked = any(
            row.samples == DEFAULT_SAMPLES and row.seed == 0 and row.status != "failed"
            for row in mine
        )
        entrants.append(
            EntrantAnalyses(
                entrant,
                version.ref,
                version.bot_id,
                version.bot.owner_id,
                [listed(row) for row in mine],
                asked,
            )
        )
    return entrants


def shown_results(s: Session, match_id: int) -> list[dict[str, Any]]:
    """The analysis the replay viewer shows of each analysed entrant, by entrant: its
    ``arena.analysis.Analysis`` document with the analysis's ``id``."""
    done = [row for row in analyses_of(s, match_id) if row.status == "done"]
    chosen = _one_each(done)
    if not chosen:
        return []
    query = select(MatchAnalysis.id, MatchAnalysis.result).where(
        MatchAnalysis.id.in_([row.id for row in chosen])
    )
    results = {analysis_id: result for analysis_id, result in s.execute(query)}
    return [{"id": row.id, **results[row.id]} for row in sorted(chosen, key=lambda r: r.entrant)]


def _one_each(rows: Iterable[MatchAnalysis]) -> list[MatchAnalysis]:
    """Per (match, entrant), the analysis with the most samples, the newest of those."""
    best: dict[tuple[int, int], MatchAnalysis] = {}
    for row in rows:
        key = (row.match_id, row.entrant)
        if key not in best or (row.samples, row.id) > (best[key].samples, best[key].id):
            best[key] = row
    return list(best.values())


@dataclass(frozen=True)
class Loss:
    """Mean loss per decision in points, its standard error (None under two decisions)
    and the number of decisions."""

    mean: float | None
    se: float | None
    count: int

    @property
    def half_width(self) -> float | None:
        """Half the 95% interval's width."""
        return None if self.se is None else Z95 * self.se


def pooled(parts: Iterable[dict[str, Any]]) -> Loss:
    """The mean loss of the decisions of several analyses together, from each one's
    ``{"mean", "se", "count"}`` (``Analysis.summary``): the decisions' spread within each
    analysis (its standard error times its count) and between their means, over all."""
    parts = [p for p in parts if p["count"]]
    n = sum(p["count"] for p in parts)
    if n == 0:
        return Loss(None, None, 0)
    mean = sum(p["mean"] * p["count"] for p in parts) / n
    if n == 1:
        return Loss(mean, None, 1)
    within = sum((p["se"] or 0.0) ** 2 * p["count"] * (p["count"] - 1) for p in parts)
    between = sum(p["count"] * (p["mean"] - mean) ** 2 for p in parts)
    return Loss(mean, math.sqrt((within + between) / (n - 1) / n), n)


@dataclass(frozen=True)
class AnalysedPlay:
    """A bot's decisions in its analysed matches: the mean loss of them all, of its calls
    and of its cards; the labels they got; its analysed matches, newest first (at most
    ``ANALYSED_MATCHES`` of ``total``)."""

    overall: Loss
    calls: Loss
    cards: Loss
    labels: dict[str, int]
    matches: list[dict[str, Any]]
    total: int


def bot_analyses(s: Session, bot_id: int) -> AnalysedPlay:
    """The bot's analysed play, every version of it (``StoreError`` for an unknown bot)."""
    if s.get(Bot, bot_id) is None:
        raise StoreError(f"no bot with id {bot_id}")
    query = (
        select(MatchAnalysis, BotVersion, MatchAnalysis.result["summary"])
        .join(BotVersion, BotVersion.id == MatchAnalysis.bot_version_id)
        .where(BotVersion.bot_id == bot_id, MatchAnalysis.status == "done")
    )
    found = {row.id: (row, version, summary) for row, version, summary in s.execute(query)}
    chosen = sorted(_one_each(row for row, _, _ in found.values()), key=lambda r: -r.id)
    summaries = [found[row.id][2] for row in chosen]
    overall, calls, cards = (pooled(one[part] for one in summaries) for part in PARTS)
    return AnalysedPlay(
        overall,
        calls,
        cards,
        {name: sum(one["labels"][name] for one in summaries) for name in LABELS},
        [_analysed_match(*found[row.id]) for row in chosen[:ANALYSED_MATCHES]],
        len(chosen),
    )


def _analysed_match(
    row: MatchAnalysis, version: BotVersion, summary: dict[str, Any]
) -> dict[str, Any]:
    return {
        "match_id": row.match_id,
        "analysis_id": row.id,
        "entrant": row.entrant,
        "version": shown_version(version),
        "samples": row.samples,
        "decisions": summary["overall"]["count"],
        "mean_loss": summary["overall"]["mean"],
        "mean_loss_se": summary["overall"]["se"],
        "labels": summary["labels"],
        "finished_at": None if row.finished_at is None else as_utc(row.finished_at).isoformat(),
    }
