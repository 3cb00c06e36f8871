"""An entrant's decisions in a match record, each with the observation its seat was sent.

The record holds every deal's dealt hands and every move in order, so replaying the moves on
the engine's ``Deal`` rebuilds the seat's exact observation and legal moves at each of its
turns (the deck is not shuffled again: the hands are the record's, which ``arena replay
check`` ties to the seed). Entrant ``e`` sits where ``seats`` (entrant in each seat) puts it
in each game: seats rotate between the games of a duplicate match.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from arena.game import CALLING, Deal, Observation, Ruleset, mask_of, parse_card, parse_cards


@dataclass(frozen=True)
class Turn:
    """One decision of the entrant's seat: where it is in the record, what was played and
    what the seat saw."""

    game: int
    deal: int
    step: int  # 1-based in the deal: calls 1-4, cards 5-56
    decision: int | None  # the referee's decision id (none for a forfeited seat's move)
    kind: str  # "call" | "play"
    move: str  # as text: "3", "AS"
    auto: bool  # the referee moved for the seat (fault fallback or forfeit)
    obs: Observation


def turns(record: dict[str, Any], entrant: int) -> Iterator[Turn]:
    """The entrant's turns in every game and deal of a finished match ``record``, in order;
    ValueError when the record's moves do not fit its decision log."""
    for g, game in enumerate(record["games"]):
        rules = Ruleset.from_dict(game["rules"])
        seat = game["seats"].index(entrant)
        scores: tuple[int, ...] = (0, 0, 0, 0)
        for d, deal_record in enumerate(game["deals"]):
            deal = _dealt(rules, deal_record, scores)
            yield from _deal_turns(g, d, deal, deal_record, seat)
            scores = tuple(s + p for s, p in zip(scores, deal.points(), strict=True))


def _dealt(rules: Ruleset, record: dict[str, Any], scores: tuple[int, ...]) -> Deal:
    hands = [mask_of(parse_cards(hand)) for hand in record["hands"]]
    return Deal(rules, record["seed"], record["dealer"], record["index"], scores, hands=hands)


def _deal_turns(g: int, d: int, deal: Deal, record: dict[str, Any], seat: int) -> Iterator[Turn]:
    """Play the deal's recorded moves on ``deal``, yielding ``seat``'s turns."""
    cards = [card for trick in record["tricks"] for card in trick["cards"]]
    log = record["decisions"]
    if len(log) != 4 + len(cards):
        raise ValueError(f"game {g + 1} deal {d + 1}: {len(log)} decisions for {len(cards)} cards")
    for step, entry in enumerate(log, 1):
        actor = deal.seat_to_act()
        if entry["seat"] != actor:
            raise ValueError(f"game {g + 1} deal {d + 1} step {step}: seat {actor} is to act")
        calling = deal.phase == CALLING
        move = str(record["calls"][actor]) if calling else cards[step - 5]
        if actor == seat:
            auto = bool(entry.get("auto") or entry.get("fault"))
            kind = "call" if calling else "play"
            obs = deal.observation(seat)
            yield Turn(g, d, step, entry.get("id"), kind, move, auto, obs)
        if calling:
            deal.call(actor, int(move))
        else:
            deal.play(actor, parse_card(move))
