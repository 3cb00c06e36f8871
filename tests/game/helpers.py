"""Helpers for the rules-core tests: compact card text, explicit deals, random play, snapshots."""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import Any

from arena.game import (
    BHOOS,
    CALLING,
    PAGAT,
    PLAYING,
    Card,
    Deal,
    Game,
    Ruleset,
    legal_plays,
    mask_of,
    parse_cards,
)

PRESETS = [PAGAT, BHOOS]
PRESET_IDS = [r.name for r in PRESETS]
RANKS_HIGH_TO_LOW = "AKQJT98765432"


def mask(text: str) -> int:
    """The bitmask of space-separated card text, e.g. ``mask("AS KS")``."""
    return mask_of(parse_cards(text))


def names(cards: Iterable[Card]) -> set[str]:
    return {str(c) for c in cards}


def legal(rules: Ruleset, hand: str, trick: str = "") -> set[str]:
    """The legal cards (as text) for ``hand`` after ``trick`` (in play order) under ``rules``."""
    return names(legal_plays(parse_cards(hand), parse_cards(trick), rules))


def suit(letter: str) -> str:
    """All 13 cards of one suit, ace first: ``suit("S") == "AS KS ... 2S"``."""
    return " ".join(rank + letter for rank in RANKS_HIGH_TO_LOW)


def deal_from(rules: Ruleset, hands: list[str], dealer: int = 0, **kwargs: Any) -> Deal:
    """A deal with explicit hands, one text of 13 cards per seat."""
    return Deal(rules, seed=0, dealer=dealer, hands=[mask(h) for h in hands], **kwargs)


def call_all(deal: Deal | Game, calls: Iterable[int] | None = None) -> None:
    """Make the four calls in turn: ``calls`` in calling order, or each ruleset's minimum."""
    target = deal.deal if isinstance(deal, Game) else deal
    plan = list(calls) if calls is not None else [target.rules.min_call] * 4
    for n in plan:
        deal.call(target.to_act, n)


def play_randomly(
    deal: Deal | Game, rng: random.Random, stop_after: int | None = None
) -> list[tuple[int, Card]]:
    """Random calls and random legal cards until the (current) deal ends or ``stop_after``
    cards have been played; returns the plays made."""
    target = deal.deal if isinstance(deal, Game) else deal
    plays: list[tuple[int, Card]] = []
    while target.phase == CALLING:
        deal.call(target.to_act, rng.choice(target.legal_calls()))
    while target.phase == PLAYING and (stop_after is None or len(plays) < stop_after):
        seat = target.to_act
        card = rng.choice(target.legal_cards())
        deal.play(seat, card)
        plays.append((seat, card))
    return plays


def play_game(game: Game, rng: random.Random) -> Game:
    """Play every deal of ``game`` with random calls and random legal cards."""
    while not game.over:
        play_randomly(game, rng)
    return game


def snapshot(obj: Any) -> Any:
    """A deep, comparable copy of every public field of a Deal or Game (for before/after)."""
    if isinstance(obj, Deal | Game):
        # Private fields are caches (e.g. the legal mask of the seat to act), not state.
        return {k: snapshot(v) for k, v in vars(obj).items() if not k.startswith("_")}
    if isinstance(obj, list | tuple):
        return (type(obj).__name__, tuple(snapshot(v) for v in obj))
    if isinstance(obj, dict):
        return {k: snapshot(v) for k, v in obj.items()}
    return obj  # ints, Cards, strings, frozen dataclasses: immutable
