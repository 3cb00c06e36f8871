"""Checking a bot's raw answer against the rules, and the fallback the referee plays instead."""

from __future__ import annotations

from arena.game import Card, Observation, parse_card
from arena.players.player import BadReply, BotFault, Move


class IllegalCall(BotFault):
    kind = "illegal_call"


class IllegalCard(BotFault):
    kind = "illegal_card"


def fallback(kind: str, obs: Observation) -> int | Card:
    """Minimum call; lowest-ranked legal card, a non-spade on equal rank."""
    if kind == "call":
        return obs.rules.min_call
    return min(obs.legal_cards, key=lambda c: (c.rank, c.suit == 0))


def checked(kind: str, raw: Move, obs: Observation) -> int | Card:
    """The move if it is legal here; else a ``BotFault`` saying what was wrong."""
    if kind == "call":
        if isinstance(raw, bool) or not isinstance(raw, int):
            raise BadReply(f"a call must be a number, got {raw!r}")
        if raw not in obs.legal_calls:
            rules = obs.rules
            raise IllegalCall(f"call {raw} outside {rules.min_call}-{rules.max_call}")
        return raw
    try:
        card = raw if isinstance(raw, Card) else parse_card(raw)
    except ValueError as exc:
        raise BadReply(str(exc)[:200]) from None
    if card not in obs.legal_cards:
        legal = " ".join(map(str, obs.legal_cards))
        raise IllegalCard(f"{card} is not legal here (legal: {legal})")
    return card
