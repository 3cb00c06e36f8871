"""Finished matches in, rating inputs out.

``record_result`` is the one writer of results. It first flips the match to ``done`` with
``UPDATE ... WHERE status != 'done'``; only the transaction that wins that update writes
game rows, faults and the replay, so a retried or duplicated job never counts twice (a
second writer waits for the first one's row lock or write lock, then sees ``done``). The
caller's session commits everything at once, or nothing.
"""

from __future__ import annotations

import json
import math
import zlib
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, insert, literal_column, select, update
from sqlalchemy.orm import Session

from arena.referee.result import MatchResult
from arena.store.errors import StoreError
from arena.store.matches import get_match
from arena.store.models import GameScore, Match, MatchFault, RatingSnapshot, Replay, utcnow
from arena.store.tournaments import get_tournament

REPLAY_ZLIB_JSON = 1  # Replay.format: zlib-compressed UTF-8 JSON
MAX_REASON = 2000


def compress_replay(record: dict[str, Any]) -> bytes:
    return zlib.compress(json.dumps(record, separators=(",", ":")).encode(), 6)


def record_result(s: Session, match_id: int, result: MatchResult, wall_seconds: float) -> bool:
    """Store a finished match; False (and nothing written) if it was already recorded.

    Entrant ``e`` of ``result`` is the bot version in ``seats[e]`` of the match row.
    """
    _check_result(result, wall_seconds)
    data = compress_replay(result.record)  # before taking any lock
    seats = _finish(s, match_id, wall_seconds, result.unsandboxed)
    if seats is None:
        get_match(s, match_id)  # raises for an unknown id
        return False
    s.execute(insert(GameScore), _score_rows(match_id, seats, result))
    if result.faults:
        s.execute(insert(MatchFault), _fault_rows(match_id, seats, result))
    s.add(Replay(match_id=match_id, format=REPLAY_ZLIB_JSON, data=data))
    s.flush()
    return True


def _finish(s: Session, match_id: int, wall_seconds: float, unsandboxed: bool) -> list[int] | None:
    """Flip the match to done unless it already is; its seats if this call did it."""
    finish = (
        update(Match)
        .where(Match.id == match_id, Match.status != "done")
        .values(
            status="done",
            finished_at=utcnow(),
            wall_seconds=wall_seconds,
            reason=None,
            unsandboxed=unsandboxed,
        )
    )
    if s.get_bind().dialect.update_returning:  # one round trip instead of two
        return s.execute(finish.returning(Match.seats)).scalar_one_or_none()
    if s.execute(finish).rowcount == 0:
        return None
    return s.scalar(select(Match.seats).where(Match.id == match_id))


def _check_result(result: MatchResult, wall_seconds: float) -> None:
    where = f"result of match {result.match_id}"
    if len(result.players) != 4:
        raise StoreError(f"{where}: 4 players expected, got {len(result.players)}")
    if len({g.index for g in result.games}) != len(result.games):
        raise StoreError(f"{where}: game indices repeat")
    for game in result.games:
        if sorted(game.seats) != [0, 1, 2, 3] or not len(game.points) == len(game.calls_made) == 4:
            raise StoreError(f"{where}: game {game.index} needs 4 seats, points and calls")
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
    """One bot in one game, for per-bot statistics. ``faults`` counts fault rows in that
    game; start-up faults (no game) count in game 0."""

    bot_version_id: int
    match_id: int
    game_index: int
    points: int  # tenths
    deals: int
    calls_made: int
    faults: int


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
    """The finished games of one tournament, or of every tournament (``None``: the ladder)."""
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
        )
        .join(Match, Match.id == GameScore.match_id)
        .order_by(GameScore.match_id, GameScore.game_index, GameScore.bot_version_id)
    )
    if tournament_id is not None:
        query = query.where(Match.tournament_id == tournament_id)
    keys: list[tuple[int, int]] = []
    games: list[dict[int, int]] = []
    lines: list[GameLine] = []
    for match_id, game, bot, points, deals, made in s.execute(query):
        if not keys or keys[-1] != (match_id, game):
            keys.append((match_id, game))
            games.append({})
        games[-1][bot] = points
        count = faults.get((match_id, game, bot), 0)
        lines.append(GameLine(bot, match_id, game, points, deals, made, count))
    return GameRows(keys, games, lines)


def _fault_counts(s: Session, tournament_id: int | None) -> dict[tuple[int, int, int], int]:
    game = func.coalesce(MatchFault.game, literal_column("0"))
    query = (
        select(MatchFault.match_id, game, MatchFault.bot_version_id, func.count())
        .join(Match, Match.id == MatchFault.match_id)
        .group_by(MatchFault.match_id, game, MatchFault.bot_version_id)
    )
    if tournament_id is not None:
        query = query.where(Match.tournament_id == tournament_id)
    return {(m, g, b): n for m, g, b, n in s.execute(query)}


def save_rating_snapshot(s: Session, tournament_id: int, payload: dict[str, Any]) -> RatingSnapshot:
    """Keep a ratings table; non-finite floats (open CI bounds) are stored as null, since
    JSON has no infinity."""
    get_tournament(s, tournament_id)
    snapshot = RatingSnapshot(tournament_id=tournament_id, payload=_finite(payload))
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


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value
