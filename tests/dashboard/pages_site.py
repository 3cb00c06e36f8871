"""Helpers of the page tests: more tournaments of the site's four bots (tests/dashboard/
conftest.py), stored unplayed, and their matches."""

from __future__ import annotations

from dataclasses import replace

from sqlalchemy import select

from arena.referee import Clock
from arena.store import BotVersion, Database, Match, create_tournament
from arena.tournaments.spec import TournamentSpec
from tests.dashboard.conftest import BOTS, CLOCK, RULES


def new_tournament(db: Database, name: str, status: str = "draft", tables: int = 2) -> int:
    """``tables`` tables of the site's four bots, each seated in turn, none played."""
    seats = [(i, tuple((i + k) % 4 for k in range(4)), 900 + i) for i in range(tables)]
    with db.session() as s:
        by_name = {v.bot.name: v for v in s.scalars(select(BotVersion))}
        spec = TournamentSpec(name=name, rules=RULES, games_per_match=2, seed=5)
        spec = replace(spec, clock=Clock(**CLOCK))
        t = create_tournament(s, spec.columns(), [by_name[n] for n, _ in BOTS], seats)
        t.status = status
        return t.id


def matches_of(db: Database, tournament_id: int) -> list[int]:
    with db.session(read_only=True) as s:
        query = select(Match.id).where(Match.tournament_id == tournament_id).order_by(Match.id)
        return list(s.scalars(query))
