"""Query parameters shared by pages and the API; bad values are ValueErrors (HTTP 400)."""

from __future__ import annotations

from collections.abc import Mapping

from sqlalchemy.orm import Session

from arena.readmodels.leaderboard import default_scope
from arena.readmodels.matches import MatchFilter
from arena.tournaments.cache import Scope
from dashboard.targets import MAX_ID


def whole(args: Mapping[str, str], name: str) -> int | None:
    value = args.get(name, "").strip()
    if not value:
        return None
    if not value.isdigit() or int(value) > MAX_ID:
        raise ValueError(f"{name} must be a whole number below 2^31, not {value!r}")
    return int(value)


def scope(s: Session, args: Mapping[str, str]) -> Scope:
    """``tournament=ID``, ``tournament=all`` (every game) or nothing (the latest finished)."""
    if args.get("tournament", "").strip() == "all":
        return None
    chosen = whole(args, "tournament")
    return default_scope(s) if chosen is None else chosen


def match_filter(args: Mapping[str, str]) -> MatchFilter:
    faults = args.get("faults", "").strip()
    if faults not in ("", "yes", "no"):
        raise ValueError(f"faults must be yes or no, not {faults!r}")
    page = whole(args, "page")
    return MatchFilter(
        tournament=whole(args, "tournament"),
        bot=whole(args, "bot"),
        status=args.get("status", "").strip() or None,
        faults=None if not faults else faults == "yes",
        page=1 if page is None else page,
    )
