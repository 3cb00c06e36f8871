"""What a bot's page and the API show of its versions' comparisons: each one's figures as
they stand (matches played, Δ points a deal ± its 95 % interval, the pairs' Elo difference,
faults per version, the verdict), the version holding the ladder seat, and the policy."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.comparisons.promotion import TAKES_SEAT
from arena.store import Bot, BotVersion, StoreError, progress
from arena.store.models import Comparison, as_utc

SHOWN = 20  # the newest comparisons on a bot's page


@dataclass(frozen=True)
class ComparisonView:
    id: int
    baseline: str  # name@version
    candidate: str
    gate: bool  # started for a new version (False: asked for)
    status: str  # running, done
    verdict: str | None  # better, worse, not separated; None while running
    promoted: bool  # it took the ladder seat by this comparison's policy
    pairs: int  # pairs played
    matches: int  # matches played
    pairs_cap: int
    delta: float | None  # points a deal, candidate minus baseline
    half_width: float | None  # of its 95 % interval
    elo: float | None  # from the share of pairs the candidate won
    elo_half_width: float | None
    faults: dict[str, int]  # by version ref
    bounds: dict[str, float]  # delta (points a deal), alpha, beta
    created_at: str
    finished_at: str | None
    tournament_id: int

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class VersionsPanel:
    bot: str
    promotion: str
    takes_seat: str  # the policy in words
    current: str | None  # the version holding the ladder seats
    choosable: list[str]  # valid versions that can be made current
    comparisons: list[ComparisonView]

    def as_dict(self) -> dict[str, Any]:
        return asdict(self) | {"comparisons": [c.as_dict() for c in self.comparisons]}


def versions_panel(s: Session, bot_id: int) -> VersionsPanel:
    bot = s.get(Bot, bot_id)
    if bot is None:
        raise StoreError(f"no bot with id {bot_id}")
    valid = [v for v in bot.versions if v.status == "valid"]
    held = next((v for v in valid if v.id == bot.current_version_id), valid[-1] if valid else None)
    query = (
        select(Comparison)
        .where(Comparison.bot_id == bot_id)
        .order_by(Comparison.id.desc())
        .limit(SHOWN)
    )
    return VersionsPanel(
        bot.name,
        bot.promotion,
        TAKES_SEAT[bot.promotion],
        held.version if held else None,
        [v.version for v in valid],
        [comparison_view(s, c) for c in s.scalars(query)],
    )


def comparison_view(s: Session, comparison: Comparison) -> ComparisonView:
    """Its figures as ``advance`` left them: after every one of its matches, by whichever
    process recorded it."""
    summary = comparison.summary or {}
    faults = summary.get("faults", {})
    wanted = [int(v) for v in faults] + [
        comparison.baseline_version_id,
        comparison.candidate_version_id,
    ]
    query = select(BotVersion).where(BotVersion.id.in_(wanted))
    refs = {v.id: v.ref for v in s.scalars(query)}
    return ComparisonView(
        id=comparison.id,
        baseline=refs[comparison.baseline_version_id],
        candidate=refs[comparison.candidate_version_id],
        gate=comparison.gate,
        status=comparison.status,
        verdict=comparison.verdict,
        promoted=comparison.promoted,
        pairs=int(summary.get("pairs", 0)),
        matches=progress(s, comparison.tournament_id)["done"],
        pairs_cap=comparison.pairs_cap,
        delta=summary.get("delta") if summary.get("pairs") else None,
        half_width=summary.get("half_width"),
        elo=summary.get("elo"),
        elo_half_width=summary.get("elo_half_width"),
        faults={refs[int(v)]: n for v, n in faults.items()},
        bounds={"delta": comparison.delta, "alpha": comparison.alpha, "beta": comparison.beta},
        created_at=as_utc(comparison.created_at).isoformat(timespec="seconds"),
        finished_at=_iso(comparison.finished_at),
        tournament_id=comparison.tournament_id,
    )


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else as_utc(moment).isoformat(timespec="seconds")


def seat_notice(s: Session, version_id: int, stored_before: bool) -> str:
    """What an upload's reply says of the ladder seat: the bot's policy for a new version,
    or, for files stored before, whether that version is current and how to make it so
    (uploading an old version's files again is no rollback)."""
    version = s.get_one(BotVersion, version_id)
    bot = version.bot
    if stored_before:
        panel = versions_panel(s, bot.id)
        if panel.current == version.version:
            return f"these files are {version.ref}, stored before: the version the ladders seat"
        return (
            f"these files are {version.ref}, stored before; the ladders seat {panel.current}: "
            f"make {version.version} current again on the bot page or with "
            f"`arena bot current {version.ref}`"
        )
    held = "its current version" if bot.current_version_id is None else "the current version"
    return {
        "now": "once valid it takes the ladder seat, and plays {held} on the same deals",
        "if-not-worse": "once valid it plays {held} on the same deals, and takes the ladder "
        "seat unless found worse",
        "keep": "once valid it plays {held} on the same deals; it takes the ladder seat only "
        "when you make it current",
    }[bot.promotion].format(held=held)
