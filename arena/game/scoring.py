"""Scoring of one deal. Points are kept as integer tenths so bhoos totals never drift."""

from __future__ import annotations

from decimal import Decimal

from arena.game.rules import Ruleset


def score_tenths(call: int, won: int, rules: Ruleset) -> int:
    """Points for one deal, in tenths of a point."""
    if rules.scoring == "bhoos":
        return 10 * call + (won - call) if won >= call else -10 * call
    if call <= won <= call + 1:
        return 10 * (rules.bonus_points if call >= rules.bonus_call else call)
    return -10 * call


def score_deal(call: int, won: int, rules: Ruleset) -> Decimal:
    """Points for one deal as an exact decimal (``float()`` gives e.g. 4.1)."""
    return tenths_to_points(score_tenths(call, won, rules))


def tenths_to_points(tenths: int) -> Decimal:
    return Decimal(tenths) / 10


def call_made(call: int, won: int, rules: Ruleset) -> bool:
    return score_tenths(call, won, rules) > 0
