"""A ladder's rows and entrants: opened once per ruleset, entered by every valid bot.

The entrants are the current version of every bot that is not retired (its newest valid
one unless its promotion policy or its owner chose another: ``arena.comparisons``) and whose
protocol plays the ladder's rules, plus the house anchors (``ANCHORS``: fixed, known
strengths, so a ladder of one contestant already has a table, and ratings stay tied to the
same bots over months)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from arena.bots.protocols import protocol_of
from arena.game import RULESETS
from arena.registry import house_version
from arena.runtime import Runtime
from arena.store import BotVersion, Database, StoreError
from arena.store.ladders import create_ladder, enter, get_ladder, seated_versions
from arena.store.models import Ladder
from arena.tournaments.schedule import DEFAULT_HOUSE_BOTS
from arena.tournaments.spec import TournamentSpec

DEFAULT_LADDER = "pagat"
ANCHORS = DEFAULT_HOUSE_BOTS
# What an organiser may set on a ladder (``arena ladder set``), with what each must be.
SETTINGS = {
    "depth": "matches kept scheduled ahead of the workers (at least 1)",
    "matches_per_hour": "a cap on matches scheduled per hour (at least 1; 0: no cap)",
    "placement_matches": "matches a new version plays before it is ranked (at least 1)",
    "settle_half_width": "the 95 % interval half-width, in Elo, at which the ladder rests (> 0)",
}


def ensure_ladder(db: Database, name: str = DEFAULT_LADDER) -> int:
    """The id of the ladder ``name`` (a ruleset's name), opened with the default settings
    when there is none: ``arena db upgrade`` and every first start call it for pagat."""
    with db.session(read_only=True) as s:
        found = s.scalar(select(Ladder.id).where(Ladder.name == name))
    if found is not None:
        return found
    try:
        return open_ladder(db, TournamentSpec.from_options(rules=name))
    except (StoreError, IntegrityError):  # opened meanwhile by another process
        with db.session(read_only=True) as s:
            return get_ladder(s, name).id


def open_ladder(db: Database, spec: TournamentSpec, **settings: object) -> int:
    """A new ladder for ``spec``'s rules (its name), clock and match length; the spec's
    entrants and schedule knobs do not apply (the ladder has its own)."""
    if spec.bots or spec.adaptive_matches:
        raise StoreError("a ladder chooses its own entrants and matches")
    name = spec.rules.name
    if name not in RULESETS or spec.rules != RULESETS[name].with_(
        deals_per_game=spec.rules.deals_per_game
    ):
        raise StoreError(f"a ladder plays a rules preset ({', '.join(sorted(RULESETS))})")
    check_settings(settings)
    resolved = replace(spec, name=spec.name or f"Ladder ({name})").resolved()
    with db.session() as s:
        return create_ladder(s, name, resolved.columns(), **settings).id


def check_settings(settings: dict[str, object]) -> None:
    """A ``StoreError`` naming the first setting that is unknown or out of range."""
    for key, value in settings.items():
        if key not in SETTINGS:
            raise StoreError(f"unknown ladder setting {key!r}: one of {', '.join(SETTINGS)}")
        number = isinstance(value, int | float) and not isinstance(value, bool)
        floor = 0 if key == "matches_per_hour" else 1
        if key == "settle_half_width":
            ok = number and float(value) > 0  # type: ignore[arg-type]
        else:
            ok = isinstance(value, int) and number and value >= floor
        if not ok:
            raise StoreError(f"{key} is {SETTINGS[key]}, not {value!r}")


def change_ladder(db: Database, name: str, **changes: Any) -> None:
    """Set the ladder's ``SETTINGS`` (checked; ``matches_per_hour=0`` removes the cap) and
    ``paused`` (no new matches; those under way finish): the one write path of the CLI,
    the organiser's button and the API."""
    settings = {key: value for key, value in changes.items() if key != "paused"}
    check_settings(settings)
    if settings.get("matches_per_hour") == 0:
        changes["matches_per_hour"] = None
    with db.session() as s:
        ladder = get_ladder(s, name)
        for key, value in changes.items():
            setattr(ladder, key, value)


def current_versions(s: Session, ladder: Ladder) -> list[BotVersion]:
    """The contestants' versions the ladder seats now (house anchors not included)."""
    rules = TournamentSpec.from_row(ladder.tournament).rules
    return [v for v in seated_versions(s) if protocol_of(v.manifest).refusal(rules) is None]


def enter_anchors(db: Database, runtime: Runtime, ladder_id: int) -> None:
    """The house anchors registered and entered (once: a no-op afterwards)."""
    versions = [house_version(db, runtime, name) for name in ANCHORS]
    with db.session() as s:
        enter(s, s.get_one(Ladder, ladder_id).tournament_id, versions)
