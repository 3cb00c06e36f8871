"""A ladder as its page, ``arena ladder show`` and the API show it: the ranked entrants
with Elo, interval and trend, the versions still being placed, and the ladder's state
(playing, settled or paused; matches in flight; roughly how long a newcomer waits). Also
where a bot stands in each ladder, for its page, and which rows are ladders', so that
tournament lists leave them out and links lead to the ladder instead."""

from __future__ import annotations

import math
import statistics
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields, replace
from datetime import timedelta
from typing import Any

from sqlalchemy import and_, or_, select
from sqlalchemy.orm import Session

from arena.bots.protocols import protocol_of
from arena.ladders.entrants import DEFAULT_LADDER, current_versions
from arena.ladders.feed import ladder_state
from arena.ladders.matchmaking import Knobs, LadderState, provisional, settled, unplaced
from arena.readmodels.leaderboard import Leaderboard, drawn
from arena.store import BotVersion, Match, RatingSnapshot, owners_of, progress
from arena.store.ladders import get_ladder, ladder_of_tournament, list_ladders
from arena.store.models import Ladder, utcnow
from arena.tournaments.cache import CACHE
from arena.tournaments.spec import TournamentSpec
from arena.tournaments.standings import cached_standings, model_for, scale_note

RECENT_MATCHES = 20  # the matches whose mean length estimates a wait
IDLE_AFTER_S = 300  # no match taken, ended or scheduled this long: nothing plays the ladder
IDLE_CHECK_S = 60  # how stale a cached "playing" may be


@dataclass(frozen=True)
class LadderEntry:
    bot_version_id: int
    bot_id: int
    bot: str
    version: str
    ref: str
    owner: str
    house: bool  # an anchor
    matches: int  # played to the end (scheduled and running ones not yet)
    rank: int | None  # None while placing
    elo: float | None
    ci_low: float | None
    ci_high: float | None
    games: int
    trend: float | None  # Elo change since the previous rating snapshot that rated it
    provisional: bool  # no game yet, or a 95 % interval wider than the settle width a side

    def as_dict(self) -> dict[str, Any]:
        """JSON data: an interval side the data leave unbounded is None."""
        return {**asdict(self), "ci_low": _finite(self.ci_low), "ci_high": _finite(self.ci_high)}


@dataclass(frozen=True)
class LadderView:
    name: str
    tournament_id: int
    rules: str
    state: str  # "playing", "settled" or "paused"
    placement_matches: int
    depth: int
    matches_per_hour: int | None
    settle_half_width: float
    in_flight: int
    done: int
    match_seconds: float | None  # mean wall time of recent matches
    ranked: list[LadderEntry]
    placing: list[LadderEntry]
    scale: str

    def wait_s(self, ahead: int = 0) -> float | None:
        """Roughly how long until a match queued behind ``ahead`` more starts: the
        matches in flight times a match's length (one worker's view; more go faster)."""
        if self.match_seconds is None:
            return None
        return (self.in_flight + ahead) * self.match_seconds

    def as_dict(self) -> dict[str, Any]:
        ranked = [e.as_dict() for e in self.ranked]
        return {**self.summary(), "ranked": ranked, "placing": [e.as_dict() for e in self.placing]}

    def summary(self) -> dict[str, Any]:
        """The view without its entrants, counted instead (a row of the ladder list)."""
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        ranked, placing = data.pop("ranked"), data.pop("placing")
        return {**data, "wait_s": self.wait_s(), "ranked": len(ranked), "placing": len(placing)}

    def entry_of(self, bot_id: int) -> LadderEntry | None:
        """The bot's current version among the entrants (None: it does not play here)."""
        return next((e for e in self.ranked + self.placing if e.bot_id == bot_id), None)


@dataclass(frozen=True)
class LadderPage:
    view: LadderView
    board: Leaderboard  # the ranked entrants drawn as any standings are (Elo bars)
    trends: dict[int, float]  # Elo change by version, where an older snapshot rated it
    others: list[str]  # the other ladders' names
    provisional: set[int]  # the ranked versions whose interval is wider than the settle width


@dataclass(frozen=True)
class LadderPlace:
    """Where a bot's current version stands in one ladder: placing (``matches`` of
    ``placement_matches``), or ranked ``rank`` of ``ranked``."""

    ladder: str
    version: str
    matches: int  # played (scheduled ones not yet: it is ranked once they are played)
    placement_matches: int
    rank: int | None
    ranked: int
    elo: float | None
    half_width: float | None  # the 95 % interval's larger side, in Elo
    trend: float | None


def ladder_names(s: Session) -> list[str]:
    return [ladder.name for ladder in list_ladders(s)]


def front_ladder(s: Session) -> str | None:
    """The ladder of the front page: the default one, else the first opened (None: none)."""
    names = ladder_names(s)
    return DEFAULT_LADDER if DEFAULT_LADDER in names else next(iter(names), None)


def ladder_of(s: Session, tournament_id: int) -> str | None:
    """The name of the ladder whose tournament row ``tournament_id`` is (None: a tournament)."""
    ladder = ladder_of_tournament(s, tournament_id)
    return ladder.name if ladder else None


def ladder_choices(s: Session) -> list[tuple[int, str]]:
    """(tournament id, name) of every ladder: a match filter's options."""
    return [(ladder.tournament_id, ladder.name) for ladder in list_ladders(s)]


def ladder_entered(s: Session, manifest: Mapping[str, Any]) -> LadderView | None:
    """The ladder a new version with ``manifest`` is placed in once valid: the front one if
    its protocol plays those rules, else the first one it plays (None: none)."""
    protocol, front = protocol_of(manifest), front_ladder(s)
    for ladder in sorted(list_ladders(s), key=lambda ladder: ladder.name != front):
        if protocol.refusal(TournamentSpec.from_row(ladder.tournament).rules) is None:
            return ladder_view(s, ladder.name)
    return None


def ladder_notice(s: Session, version_id: int) -> dict[str, Any] | None:
    """What an upload's reply says of the ladder the version enters once valid (None:
    no ladder plays its protocol): its name, placement matches, state and the wait."""
    view = ladder_entered(s, s.get_one(BotVersion, version_id).manifest)
    if view is None:
        return None
    return {
        "name": view.name,
        "placement_matches": view.placement_matches,
        "state": view.state,
        "wait_s": view.wait_s(),
    }


def ladder_page(s: Session, name: str) -> LadderPage:
    view = ladder_view(s, name)
    fitted = {st.bot_version_id: st for st in cached_standings(s, view.tournament_id)}
    table = [fitted[e.bot_version_id] for e in view.ranked]
    model = model_for(s, view.tournament_id)
    board = drawn(s, table, view.tournament_id, f"Ladder {name}", model, view.scale)
    trends = {e.bot_version_id: e.trend for e in view.ranked if e.trend is not None}
    others = [n for n in ladder_names(s) if n != name]
    unsure = {e.bot_version_id for e in view.ranked if e.provisional}
    return LadderPage(view, board, trends, others, unsure)


def bot_places(s: Session, bot_id: int) -> list[LadderPlace]:
    """The bot's current version in every ladder that seats it."""
    places = []
    for name in ladder_names(s):
        view = ladder_view(s, name)
        e = view.entry_of(bot_id)
        if e is None:
            continue
        places.append(
            LadderPlace(
                name,
                e.version,
                min(e.matches, view.placement_matches),
                view.placement_matches,
                e.rank,
                len(view.ranked),
                e.elo,
                _half_width(e),
                e.trend,
            )
        )
    return places


def ladder_view(s: Session, name: str) -> LadderView:
    """The ladder's table, built once per change of its matches' statuses, its entrants or
    its settings (a crowd reading the front page, the ladder and the bot pages between two
    results costs one build, not one a request)."""
    ladder = get_ladder(s, name)
    current = current_versions(s, ladder)
    entrants = [v.id for v in current]
    counts = sorted(progress(s, ladder.tournament_id).items())
    knobs = (ladder.paused, ladder.depth, ladder.matches_per_hour, ladder.placement_matches)
    kind = f"ladder-view {name} {counts} {entrants} {knobs} {ladder.settle_half_width}"
    kind += f" {int(time.time() // IDLE_CHECK_S)}"  # "playing" or "waiting" goes with time
    return CACHE.get(s, kind, ladder.tournament_id, lambda: _ladder_view(s, ladder, current))


def _ladder_view(s: Session, ladder: Ladder, current: list[BotVersion]) -> LadderView:
    state = ladder_state(s, ladder, current)
    fitted = {st.bot_version_id: st for st in cached_standings(s, ladder.tournament_id)}
    seated = [int(r.name) for r in state.standings]  # contestants and anchors
    versions = {v.id: v for v in s.scalars(select(BotVersion).where(BotVersion.id.in_(seated)))}
    owners = owners_of(s, {v.bot_id for v in versions.values()})
    # played, not scheduled: a version is ranked once its placement matches are played
    played = Counter(state.matches)
    played.subtract(name for table in state.in_flight for name in table)
    quota = ladder.placement_matches
    knobs = Knobs(quota, ladder.settle_half_width)
    standing = {r.name: r for r in state.standings}
    previous = _previous_elo(s, ladder)
    entries = []
    for version_id, version in versions.items():
        fit = fitted.get(version_id)
        r = fit.rating if fit else None
        entries.append(
            LadderEntry(
                version_id,
                version.bot_id,
                version.bot.name,
                version.version,
                version.ref,
                owners.get(version.bot_id, ""),
                "house" in version.manifest,
                played[str(version_id)],
                None,
                r.elo if r else None,
                r.ci_low if r else None,
                r.ci_high if r else None,
                r.games if r else 0,
                r.elo - previous[version_id] if r and version_id in previous else None,
                r is None or provisional(standing[str(version_id)], knobs.settle_half_width),
            )
        )
    # placed once it is no longer provisional or has played the cap of placement matches
    placing = [
        e for e in entries if e.elo is None or (not e.house and e.provisional and e.matches < quota)
    ]
    ranked = sorted((e for e in entries if e not in placing), key=_order)
    ranked = [replace(e, rank=i) for i, e in enumerate(ranked, 1)]
    placing.sort(key=lambda e: (-e.matches, e.ref))
    model = model_for(s, ladder.tournament_id)
    return LadderView(
        ladder.name,
        ladder.tournament_id,
        TournamentSpec.from_row(ladder.tournament).rules.name,
        _state(s, ladder, state, bool(unplaced(state, knobs))),
        ladder.placement_matches,
        ladder.depth,
        ladder.matches_per_hour,
        ladder.settle_half_width,
        len(state.in_flight),
        progress(s, ladder.tournament_id)["done"],
        _match_seconds(s, ladder),
        ranked,
        placing,
        scale_note(model, ladder.tournament_id).replace("this tournament", "this ladder"),
    )


def _finite(x: float | None) -> float | None:
    return x if x is not None and math.isfinite(x) else None


def _half_width(e: LadderEntry) -> float | None:
    """The 95 % interval's larger side (None: unrated, or unbounded by the data)."""
    if e.elo is None or e.ci_low is None or e.ci_high is None:
        return None
    return _finite(max(e.elo - e.ci_low, e.ci_high - e.elo))


def _order(e: LadderEntry) -> tuple[float, str]:
    return (-(e.elo or 0.0), e.ref)


def _state(s: Session, ladder: Ladder, state: LadderState, placing: bool) -> str:
    """Paused; waiting when it has matches to play and nothing has played one for
    ``IDLE_AFTER_S`` (no worker, no ``arena ladder run``); playing (matches in flight or to
    place); else settled when the matchmaker would schedule nothing."""
    if ladder.paused:
        return "paused"
    if state.in_flight and not _played_lately(s, ladder):
        return "waiting"
    if placing or state.in_flight or len(state.standings) < 4:
        return "playing"
    return "settled" if settled(state.standings, ladder.settle_half_width) else "playing"


def _played_lately(s: Session, ladder: Ladder) -> bool:
    """A match of the ladder is under a live lease, or one ended within ``IDLE_AFTER_S``, or
    the first ones were scheduled within it (a worker may not have taken them yet)."""
    now = utcnow()
    since = now - timedelta(seconds=IDLE_AFTER_S)
    mine = Match.tournament_id == ladder.tournament_id
    live = or_(
        and_(Match.status == "running", Match.lease_expires_at > now),
        Match.finished_at > since,
        Match.created_at > since,
    )
    return s.scalar(select(Match.id).where(mine, live).limit(1)) is not None


def _match_seconds(s: Session, ladder: Ladder) -> float | None:
    query = (
        select(Match.wall_seconds)
        .where(Match.tournament_id == ladder.tournament_id, Match.wall_seconds.is_not(None))
        .order_by(Match.id.desc())
        .limit(RECENT_MATCHES)
    )
    seconds = [x for x in s.scalars(query) if x is not None]
    return statistics.fmean(seconds) if seconds else None


def _previous_elo(s: Session, ladder: Ladder) -> dict[int, float]:
    """Each version's Elo in the latest rating snapshot but one that rated it."""
    query = (
        select(RatingSnapshot.payload)
        .where(RatingSnapshot.tournament_id == ladder.tournament_id)
        .order_by(RatingSnapshot.id.desc())
        .limit(2)
    )
    snapshots = list(s.scalars(query))
    if len(snapshots) < 2:
        return {}
    return {row["bot_version_id"]: row["elo"] for row in snapshots[1].get("standings", [])}
