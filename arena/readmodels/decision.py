"""Export one decision of a match record as the request that seat received, and load it back.

The record holds the seeds and every move, so replaying the game with the engine up to that
turn gives the seat's exact observation and legal moves. The clock is rebuilt the way the
referee runs it: each game starts every bank full, and a decision's overrun beyond the
per-decision allowance is taken from its bank (recorded times are rounded to the
microsecond, so the bank can differ from the original by under a millisecond).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from google.protobuf import json_format

from arena.game import Game, Ruleset, parse_card
from arena.game.record import SHUFFLE_OF_VERSION
from arena.players.player import Kind, MatchInfo, Request
from arena.players.wire import observation_from_proto, request_to_proto
from arena.proto import bot_pb2 as pb

FORMAT = "callbreak-decision"
VERSION = 1


class DecisionNotFound(ValueError):
    """The record has no decision with that id in that game."""


def _turns(deal: dict[str, Any]) -> list[tuple[str, Any]]:
    """(kind, move) in the order they were made: the four calls, then every card."""
    dealer = deal["dealer"]
    calls = [("call", deal["calls"][(dealer + 1 + k) % 4]) for k in range(4)]
    plays = [("play", card) for trick in deal["tricks"] for card in trick["cards"]]
    return calls + plays


@dataclass(frozen=True)
class Turn:
    """One decision of a game replayed from its record: ``game`` as the seat to act saw it
    (before ``move``; it moves on with the next turn), the record's ``entry`` of it (``id``,
    ``ms``, ``fault``; or ``auto`` for a forfeited seat's move) and its ``deal`` record."""

    game: Game
    seat: int
    kind: str  # call or play
    move: Any
    entry: dict[str, Any]
    deal: dict[str, Any]
    bank_ms: float  # the seat's bank as the referee ran the clock


def game_turns(record: dict[str, Any], game_index: int) -> Iterator[Turn]:
    """Every turn of game ``game_index`` of a whole match record, in order, in one replay."""
    game_rec, clock = record["games"][game_index], record["clock"]
    shuffle = SHUFFLE_OF_VERSION[game_rec["version"]]
    game = Game(
        Ruleset.from_dict(game_rec["rules"]), game_rec["seed"], game_rec["first_dealer"], shuffle
    )
    banks = [float(clock["bank_ms"])] * 4  # by seat: an entrant keeps its seat for the game
    for deal_rec in game_rec["deals"]:
        for (kind, move), entry in zip(_turns(deal_rec), deal_rec["decisions"], strict=True):
            seat = game.deal.seat_to_act()
            yield Turn(game, seat, kind, move, entry, deal_rec, banks[seat])
            if not entry.get("auto"):
                overrun = max(0.0, entry["ms"] - clock["decision_ms"])
                banks[seat] = max(0.0, banks[seat] - overrun)
            if kind == "call":
                game.call(seat, move)
            else:
                game.play(seat, parse_card(move))


def export_decision(record: dict[str, Any], game_index: int, decision_id: int) -> dict[str, Any]:
    """The exported file for decision ``decision_id`` of game ``game_index`` of a match."""
    if not 0 <= game_index < len(record["games"]):
        raise DecisionNotFound(f"the match has no game {game_index + 1} (index {game_index})")
    for turn in game_turns(record, game_index):
        if turn.entry.get("id") == decision_id:
            return _export(record, game_index, turn)
    raise DecisionNotFound(f"game {game_index + 1} has no decision {decision_id}")


def _export(record: dict[str, Any], game_index: int, turn: Turn) -> dict[str, Any]:
    obs = turn.game.deal.observation(turn.seat)
    allowed = record["clock"]["decision_ms"] + turn.bank_ms
    msg = request_to_proto(
        turn.entry["id"], turn.kind, obs, game_index, int(turn.bank_ms), int(allowed)
    )
    game_rec = record["games"][game_index]
    return {
        "format": FORMAT,
        "version": VERSION,
        "match_id": record["match_id"],
        "bot": game_rec["players"][turn.seat],
        "rules": game_rec["rules"],
        "clock": record["clock"],
        "request": json_format.MessageToDict(msg.decision, preserving_proto_field_name=True),
        "played": {"move": turn.move, "ms": turn.entry.get("ms"), "fault": turn.entry.get("fault")},
    }


@dataclass(frozen=True)
class LoadedDecision:
    info: MatchInfo
    request: Request
    startup_ms: int


def load_decision(data: dict[str, Any]) -> LoadedDecision:
    """What a Player needs to answer an exported decision again; ValueError if malformed."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"not a {FORMAT} file (export one from a replay in the dashboard)")
    if data.get("version") != VERSION:
        raise ValueError(f"{FORMAT} version {data.get('version')} is not supported")
    try:
        rules = Ruleset.from_dict(data["rules"])
        req = json_format.ParseDict(data["request"], pb.DecisionRequest())
        clock = data["clock"]
        info = MatchInfo(data["match_id"], rules, clock["decision_ms"], clock["bank_ms"])
    except (KeyError, TypeError, json_format.ParseError) as exc:
        raise ValueError(f"malformed {FORMAT} file: {exc}") from None
    kind: Kind = "call" if req.kind == pb.CALL else "play"
    obs = observation_from_proto(req, rules)
    request = Request(req.id, kind, req.observation.game, obs, req.time_left_ms, req.decision_ms)
    return LoadedDecision(info, request, clock.get("startup_ms", 15_000))
