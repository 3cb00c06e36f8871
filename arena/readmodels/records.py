"""What anyone may see of a match's record: the one rule every reader goes through.

A match is a duplicate set: the deals of game 1 are dealt again in games 2..G, rotated one
seat each game. A hand shown while a later rotation of its deal is still to come is a hand
some bot has yet to hold (or to play against), and a spectator could pass it on. So the
cards of a deal are shown once every rotation of it has been played: here, once the match is
done and its record holds all G games with the same deals. In practice that is when the
match ends.

Until then everybody (spectators, owners, organisers, the API, the CLI: no exceptions, so
no reader has to know who is asking) gets the progress: per game and deal the points of
each seat, game and match totals, and faults by kind and place. Not the hands, the calls,
the tricks, the decisions, the seeds, nor a fault's reason (an illegal card's reason lists
the legal cards). Points do tell how a deal's call went for that seat (made or not, with
how many extra tricks); that much is the score a table shows anyway.
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy.orm import Session

from arena.players.player import public_reason
from arena.store import Tournament, get_match, load_live_record_json, load_replay_json

# What a progress record keeps, by level: anything else of the record (hands, calls,
# tricks, decisions, seeds, reasons, whatever a later record version adds) is left out.
RECORD_KEYS = (
    "format",
    "version",
    "match_id",
    "rules",
    "clock",
    "max_strikes",
    "players",
    "forfeited",
    "sandbox",
    "totals",
    "partial",
)
GAME_KEYS = ("players", "seats", "scores")
DEAL_KEYS = ("index", "points")
FAULT_KEYS = ("entrant", "kind", "game", "deal")


def shown_record(s: Session, match_id: int) -> dict[str, Any] | None:
    """The match's record as anybody may see it: the whole of it once every rotation of its
    deals is played (``progress`` absent), else its progress (``progress``: true); None
    when nothing has been played yet (pending, failed, or a running match's first deal)."""
    match = get_match(s, match_id)
    text: str | None
    if match.status == "done":
        text = load_replay_json(s, match_id)
    elif match.status == "running":
        text = load_live_record_json(s, match_id)
    else:
        return None
    if text is None:
        return None
    rotations = s.get_one(Tournament, match.tournament_id).games_per_match
    return visible(json.loads(text), match.status == "done", rotations)


def visible(record: dict[str, Any], finished: bool, rotations: int) -> dict[str, Any]:
    """``record`` whole (fault reasons made public) if ``finished`` and every deal in it has
    been played in all ``rotations`` games; else only its progress."""
    if finished and every_rotation_played(record, rotations):
        return _public_reasons(record)
    return progress(record)


def every_rotation_played(record: dict[str, Any], rotations: int) -> bool:
    """Whether the record holds ``rotations`` games and each has played the same deals."""
    games = record.get("games", [])
    dealt = [sorted(deal["index"] for deal in game["deals"]) for game in games]
    return len(games) == rotations and all(d == dealt[0] for d in dealt)


def progress(record: dict[str, Any]) -> dict[str, Any]:
    """Scores and progress only: see the module docstring for what is kept."""
    shown = _only(record, RECORD_KEYS)
    shown["progress"] = True
    shown["games"] = [
        {**_only(game, GAME_KEYS), "deals": [_only(d, DEAL_KEYS) for d in game["deals"]]}
        for game in record.get("games", [])
    ]
    shown["faults"] = [_only(fault, FAULT_KEYS) for fault in record.get("faults", [])]
    return shown


def _only(data: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    return {key: data[key] for key in keys if key in data}


def _public_reasons(record: dict[str, Any]) -> dict[str, Any]:
    """The record with its faults' reasons made public (``public_reason``: no bot log
    line)."""
    for fault in record.get("faults", []):
        if "reason" in fault:
            fault["reason"] = public_reason(fault["reason"])
    return record
