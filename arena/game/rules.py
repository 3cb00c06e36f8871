"""Rulesets as data: a variant is a different value, never a code fork."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from types import MappingProxyType
from typing import Any, Literal

HeadMode = Literal["never", "unless_trumped", "always"]
Scoring = Literal["pagat", "bhoos"]
Redeal = Literal["none", "no_spade", "no_face", "no_spade_or_face"]

_CHOICES: dict[str, tuple[str, ...]] = {
    "must_head": ("never", "unless_trumped", "always"),
    "scoring": ("pagat", "bhoos"),
    "redeal": ("none", "no_spade", "no_face", "no_spade_or_face"),
}


@dataclass(frozen=True)
class Ruleset:
    """Every knob of the rules page's variant table.

    ``must_head``: whether a player following suit must beat the highest card of the led
    suit when able. ``must_trump``: whether a player void in the led suit must play a spade
    that heads the trick when able. ``redeal``: which dealt hands force a new deal (a
    platform cannot ask a bot whether to throw in, so the choice is automatic).
    """

    name: str = "pagat"
    min_call: int = 2
    max_call: int = 13
    must_head: HeadMode = "never"
    must_trump: bool = True
    scoring: Scoring = "pagat"
    deals_per_game: int = 5
    redeal: Redeal = "none"
    bonus_call: int = 8
    bonus_points: int = 13

    def __post_init__(self) -> None:
        for key, allowed in _CHOICES.items():
            if getattr(self, key) not in allowed:
                raise ValueError(
                    f"{key} must be one of {', '.join(allowed)}, not {getattr(self, key)!r}"
                )
        if not 1 <= self.min_call <= self.max_call <= 13:
            raise ValueError(
                "call range must satisfy 1 <= min <= max <= 13, "
                f"not {self.min_call}-{self.max_call}"
            )
        if not 1 <= self.deals_per_game <= 100:
            raise ValueError(f"deals_per_game must be 1-100, not {self.deals_per_game}")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Ruleset:
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown ruleset keys: {', '.join(sorted(unknown))}")
        return cls(**data)

    def with_(self, **changes: Any) -> Ruleset:
        return replace(self, **changes)


PAGAT = Ruleset()
BHOOS = Ruleset(
    name="bhoos",
    min_call=1,
    max_call=8,
    must_head="unless_trumped",
    must_trump=True,
    scoring="bhoos",
    deals_per_game=5,
)

RULESETS = MappingProxyType({"pagat": PAGAT, "bhoos": BHOOS})


def get_ruleset(name: str) -> Ruleset:
    try:
        return RULESETS[name]
    except KeyError:
        raise ValueError(
            f"unknown ruleset {name!r}; choose one of: {', '.join(RULESETS)}"
        ) from None
