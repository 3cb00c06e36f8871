"""Finished matches in, rating inputs out.

``record_result`` is the one writer of results. It first flips the match to ``done`` with
``UPDATE ... WHERE status = 'running' AND attempt_token = <the writer's lease>``; only the
transaction that wins that update writes game rows, faults, bot logs and the replay, so a
retried, duplicated or late job never counts twice (a second writer waits for the first
one's row lock or write lock, then sees ``done``; a late one is counted in
``late_results``). The match's live record (its progress while it ran) goes in the same
transaction, and so does its hindsight row (the decision audit's judging, queued unless
every entrant is a house bot). The caller's session commits everything at once, or
nothing, so a crash while recording leaves the match running under a lease that expires.
"""

from __future__ import annotations

import json
import math
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, func, insert, literal_column, select, update
from sqlalchemy.orm import Session

from arena.referee.result import FORFEIT, MatchResult
from arena.store.db import rowcount
from arena.store.errors import StoreError
from arena.store.hindsights import add_hindsight
from arena.store.matches import Lease, count_late_result, drop_live_record, get_match
from arena.store.models import (
    BotLog,
    GameScore,
    Match,
    MatchFault,
    RatingSnapshot,
    Replay,
    utcnow,
)
from arena.store.tournaments import get_tournament
from arena.store.validations import listed

REPLAY_ZLIB_JSON = 1  # Replay.format: zlib-compressed UTF-8 JSON
MAX_REASON = 2000
MAX_LOG = 64 * 1024  # characters of each bot's log kept with a match (its end)


def compress_replay(record: dict[str, Any]) -> bytes:
    return zlib.compress(json.dumps(record, separators=(",", ":")).encode(), 6)


def record_result(
    s: Session,
    lease: Lease,
    result: MatchResult,
    wall_seconds: float,
    logs: Mapping[int, str] | None = None,
    audited: bool = True,
) -> bool:
    """Store a finished match; False (and nothing but a late-result count written) unless
    ``lease`` is the match's current attempt. ``audited=False``: the decision audit does
    not judge it (a validation match, which no statistic counts).

    Entrant ``e`` of ``result`` (and of ``logs``) is the bot version in ``seats[e]``.
    """
    _check_result(result, wall_seconds)
    data = compress_replay(result.record)  # before taking any lock
    match_id = lease.match_id
    seats = _finish(s, lease, wall_seconds, result.unsandboxed)
    if seats is None:
        get_match(s, match_id)  # raises for an unknown id
        count_late_result(s, match_id)
        return False
    s.execute(insert(GameScore), _score_rows(match_id, seats, result))
    if result.faults:
        s.execute(insert(MatchFault), _fault_rows(match_id, seats, result))
    if logs:
        s.execute(insert(BotLog), _log_rows(match_id, seats, logs))
    s.add(Replay(match_id=match_id, format=REPLAY_ZLIB_JSON, data=data))
    drop_live_record(s, match_id)  # the full record replaces it in the same commit
    if audited:
        add_hindsight(s, match_id, seats)  # the decision audit's judging, queued with the result
    s.flush()
    return True


def _log_rows(match_id: int, seats: list[int], logs: Mapping[int, str]) -> list[dict]:
    return [
        {"match_id": match_id, "bot_version_id": seats[e], "text": text[-MAX_LOG:]}
        for e, text in sorted(logs.items())
    ]


def bot_logs(s: Session, match_id: int) -> dict[int, str]:
    """The captured log of each bot of a finished match, by bot_version id."""
    query = select(BotLog.bot_version_id, BotLog.text).where(BotLog.match_id == match_id)
    return dict(s.execute(query).all())


def _finish(s: Session, lease: Lease, wall_seconds: float, unsandboxed: bool) -> list[int] | None:
    """Flip the match to done if ``lease`` is its current attempt; its seats if so."""
    finish = (
        update(Match)
        .where(
            Match.id == lease.match_id,
            Match.status == "running",
            Match.attempt_token == lease.token,
        )
        .values(
            status="done",
            finished_at=utcnow(),
            wall_seconds=wall_seconds,
            reason=None,
            attempt_token=None,
            lease_expires_at=None,
            unsandboxed=unsandboxed,
        )
    )
    if s.get_bind().dialect.update_returning:  # one round trip instead of two
        return s.execute(finish.returning(Match.seats)).scalar_one_or_none()
    if rowcount(s.execute(finish)) == 0:
        return None
    return s.scalar(select(Match.seats).where(Match.id == lease.match_id))


def _check_result(result: MatchResult, wall_seconds: float) -> None:
    where = f"result of match {result.match_id}"
    if len(result.players) != 4:
        raise StoreError(f"{where}: 4 players expected, got {len(result.players)}")
    if len({g.index for g in result.games}) != len(result.games):
        raise StoreError(f"{where}: game indices repeat")
    for game in result.games:
        if sorted(game.seats) != [0, 1, 2, 3] or not len(game.points) == len(game.calls_made) == 4:
            raise StoreError(f"{where}: game {game.index + 1} needs 4 seats, points and calls")
    if any(not 0 <= f.entrant < 4 for f in result.faults):
        raise StoreError(f"{where}: a fault names an entrant outside 0-3")
    if not (math.isfinite(wall_seconds) and wall_seconds >= 0):
        raise StoreError(f"{where}: wall_seconds must be a finite duration, not {wall_seconds}")


def _score_rows(match_id: int, seats: list[int], result: MatchResult) -> list[dict]:
    return [
        {
            "match_id": match_id,
            "game_index": game.index,
            "bot_version_id": seats[entrant],
            "seat": game.seats.index(entrant),
            "points": game.points[entrant],
            "deals": game.deals,
            "calls_made": game.calls_made[entrant],
        }
        for game in result.games
        for entrant in range(4)
    ]


def _fault_rows(match_id: int, seats: list[int], result: MatchResult) -> list[dict]:
    return [
        {
            "match_id": match_id,
            "bot_version_id": seats[fault.entrant],
            "game": fault.game,
            "deal": fault.deal,
            "decision": fault.decision,
            "kind": fault.kind,
            "reason": fault.reason if fault.reason is None else fault.reason[:MAX_REASON],
        }
        for fault in result.faults
    ]


def load_replay(s: Session, match_id: int) -> dict[str, Any]:
    """The match record (``MatchResult.record``) as it was stored."""
    return json.loads(load_replay_json(s, match_id))


def load_replay_json(s: Session, match_id: int) -> str:
    """The stored record as JSON text, for pages that pass it on without reading it."""
    replay = s.scalar(select(Replay).where(Replay.match_id == match_id))
    if replay is None:
        get_match(s, match_id)
        raise StoreError(f"match {match_id} has no replay yet (it has not finished)")
    if replay.format != REPLAY_ZLIB_JSON:
        raise StoreError(f"replay of match {match_id}: unknown format {replay.format}")
    return zlib.decompress(replay.data).decode()


@dataclass(frozen=True)
class GameLine:
    """One bot in one game, for per-bot statistics. ``faults`` counts its faults in that
    game (forfeits are not faults: ``counts_as_fault``); start-up faults count in game 0."""

    bot_version_id: int
    match_id: int
    game_index: int
    points: int  # tenths
    deals: int
    calls_made: int
    faults: int
    seat: int  # the seat's hands are the same in every game of the match (a duplicate set)


@dataclass(frozen=True)
class GameRows:
    """Finished games of a tournament ordered by (match id, game index); ``games[i]`` maps
    bot_version id → points (tenths) in the game ``keys[i]``; ``lines`` in the same order."""

    keys: list[tuple[int, int]]
    games: list[dict[int, int]]
    lines: list[GameLine]

    @property
    def groups(self) -> list[int]:
        """The match id of each game: the resampling unit for rating intervals."""
        return [match_id for match_id, _ in self.keys]


def game_rows(s: Session, tournament_id: int | None) -> GameRows:
    """The finished games of one tournament, or of every tournament (``None``; validation
    matches left out, as from every statistic)."""
    if tournament_id is not None:
        get_tournament(s, tournament_id)
    faults = _fault_counts(s, tournament_id)
    query = (
        select(
            GameScore.match_id,
            GameScore.game_index,
            GameScore.bot_version_id,
            GameScore.points,
            GameScore.deals,
            GameScore.calls_made,
            GameScore.seat,
        )
        .join(Match, Match.id == GameScore.match_id)
        .order_by(GameScore.match_id, GameScore.game_index, GameScore.bot_version_id)
    )
    query = query.where(_in_scope(tournament_id))
    keys: list[tuple[int, int]] = []
    games: list[dict[int, int]] = []
    lines: list[GameLine] = []
    for match_id, game, bot, points, deals, made, seat in s.execute(query):
        if not keys or keys[-1] != (match_id, game):
            keys.append((match_id, game))
            games.append({})
        games[-1][bot] = points
        count = faults.get((match_id, game, bot), 0)
        lines.append(GameLine(bot, match_id, game, points, deals, made, count, seat))
    return GameRows(keys, games, lines)


def match_points(s: Session, match_ids: list[int]) -> dict[tuple[int, int], tuple[int, int]]:
    """(points in tenths, deals) of each bot version over each of these matches' games, by
    (match id, version id)."""
    query = (
        select(GameScore.match_id, GameScore.bot_version_id, func.sum(GameScore.points))
        .add_columns(func.sum(GameScore.deals))
        .where(GameScore.match_id.in_(match_ids))
        .group_by(GameScore.match_id, GameScore.bot_version_id)
    )
    return {(m, v): (points, deals) for m, v, points, deals in s.execute(query)}


def _fault_counts(s: Session, tournament_id: int | None) -> dict[tuple[int, int, int], int]:
    game = func.coalesce(MatchFault.game, literal_column("0"))
    query = (
        select(MatchFault.match_id, game, MatchFault.bot_version_id, func.count())
        .join(Match, Match.id == MatchFault.match_id)
        .where(MatchFault.kind != FORFEIT)
        .group_by(MatchFault.match_id, game, MatchFault.bot_version_id)
    )
    return {(m, g, b): n for m, g, b, n in s.execute(query.where(_in_scope(tournament_id)))}


def _in_scope(tournament_id: int | None) -> ColumnElement[bool]:
    """The matches of one tournament, or (``None``) of every tournament but validations."""
    return listed() if tournament_id is None else Match.tournament_id == tournament_id


def save_rating_snapshot(s: Session, tournament_id: int, payload: dict[str, Any]) -> RatingSnapshot:
    """Keep a ratings table; non-finite floats (open CI bounds) are stored as null, since
    JSON has no infinity."""
    get_tournament(s, tournament_id)
    snapshot = RatingSnapshot(tournament_id=tournament_id, payload=finite_json(payload))
    s.add(snapshot)
    s.flush()
    return snapshot


def latest_rating_snapshot(s: Session, tournament_id: int) -> RatingSnapshot | None:
    query = (
        select(RatingSnapshot)
        .where(RatingSnapshot.tournament_id == tournament_id)
        .order_by(RatingSnapshot.id.desc())
        .limit(1)
    )
    return s.scalar(query)


def finite_json(value: Any) -> Any:
    """``value`` as stored in a JSON column: non-finite floats become null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): finite_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [finite_json(v) for v in value]
    return value
