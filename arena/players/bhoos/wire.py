"""The Bhoos protocol's JSON, from an observation, and its answers, back to moves.

Player ids are the seat numbers (``P0``..``P3``, listed in playing order, the same for the
whole game): they say nothing a gRPC bot does not see as ``observation.seat``, and nothing
about which entrant sits where.
"""

from __future__ import annotations

from typing import Any

from arena.game import BHOOS, Card, Observation, Ruleset, parse_card
from arena.players.player import BadReply, Kind, Move, Request

PLAYER_IDS = ("P0", "P1", "P2", "P3")  # index = seat
_RANKS = "23456789TJQK1"  # the contest writes the ace as 1
_SUITS = "SHCD"
_MAX_BID = 2**32  # what a gRPC bot's uint32 can say: keeps fault reasons short


def card_out(card: Card) -> str:
    """Our ``AS`` as the contest's ``1S``."""
    text = str(card)
    return "1" + text[1] if text[0] == "A" else text


def card_in(text: object) -> Card:
    """The contest's spelling (``1S``, ``TD``) as a card; anything else is a malformed reply."""
    if not (isinstance(text, str) and len(text) == 2):
        raise BadReply(f"not a card: {_short(text)} (expected e.g. '1S', 'TD', '2C')")
    rank, suit = text[0], text[1]
    if rank not in _RANKS or suit not in _SUITS:
        raise BadReply(f"unknown card {_short(text)} (ranks 2-9 T J Q K 1, suits S H C D)")
    return parse_card(("A" if rank == "1" else rank) + suit)


def plays_bhoos(rules: Ruleset) -> bool:
    """Whether ``rules`` are the bhoos preset (any number of deals): the protocol carries no
    rules, so its bots assume them."""
    return rules.with_(deals_per_game=BHOOS.deals_per_game) == BHOOS


def request_body(request: Request) -> dict[str, Any]:
    """The body of ``POST /bid`` or ``POST /play`` for this decision."""
    obs = request.observation
    body: dict[str, Any] = {
        "playerId": PLAYER_IDS[obs.seat],
        "playerIds": list(PLAYER_IDS),
        "cards": [card_out(c) for c in obs.hand],
        "context": {"round": obs.deal + 1, "players": _players(obs)},
    }
    if request.kind == "play":
        body["timeBudget"] = request.decision_ms
        body["played"] = [card_out(c) for c in obs.current.cards]
        body["history"] = [[t.leader, [card_out(c) for c in t.cards], t.winner] for t in obs.tricks]
    return body


def _players(obs: Observation) -> dict[str, dict[str, Any]]:
    """Public per-player figures: game total before this deal (points, 0.1 per overtrick),
    call (0 before it is made) and tricks won in this deal."""
    return {
        PLAYER_IDS[s]: {
            "totalPoints": _points(obs.scores[s]),
            "bid": obs.calls[s] or 0,
            "won": obs.won[s],
        }
        for s in range(4)
    }


def _points(tenths: int) -> int | float:
    return tenths // 10 if tenths % 10 == 0 else tenths / 10


def move_from(kind: Kind, answer: object) -> Move:
    """``{"value": ...}`` as a raw move for the referee to check (legality is its job)."""
    if not isinstance(answer, dict) or "value" not in answer:
        raise BadReply(f'expected a JSON object {{"value": ...}}, got {_short(answer)}')
    value = answer["value"]
    if kind == "call":
        if isinstance(value, bool) or not isinstance(value, int) or abs(value) > _MAX_BID:
            raise BadReply(f"a bid must be a whole number, got {_short(value)}")
        return value
    return card_in(value)


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
