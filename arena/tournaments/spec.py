"""What a tournament is made of, as one frozen value: ``TournamentSpec``.

``arena tournament create``, the organiser's form and ``arena demo`` build one
(``from_options``: the names the command line's options and the form's fields share),
``new_tournament`` creates the tournament it describes, the store keeps its ``columns()``
and ``from_row`` reads a stored tournament back (what its matches are played under).

Every default is written here (``DEFAULTS`` for the front ends) and every setting is checked
here, once: a spec that exists is valid; an invalid one is a ``StoreError`` with a one-line
reason.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

from arena.game import PAGAT, RULESETS, Ruleset
from arena.ratings import DEFAULT_MODEL, MODELS
from arena.referee import DEFAULT_MAX_STRIKES, Clock
from arena.store import StoreError
from arena.store.tournaments import MAX_SEED
from arena.text import plural
from arena.tournaments.schedule import DEFAULT_MAX_TABLES

MAX_NAME = 128  # characters of a tournament's name (its column's width)
# The Tournament row's settings columns (besides ``deals_per_game``, the rules' own).
STORED = (
    "name",
    "ruleset",
    "clock",
    "games_per_match",
    "seed",
    "max_strikes",
    "rating_model",
    "adaptive_matches",
    "adaptive_top",
    "allow_same_owner",
)
_CLOCK_KEYS = tuple(f.name for f in fields(Clock))


@dataclass(frozen=True)
class TournamentSpec:
    """A tournament's settings: its entrants, the rules and clock of its matches, how they
    are scheduled and how its standings are fitted."""

    # Entrants: bot versions (``name``, ``name@version`` or an id) or house bots
    # (``house:heuristic``); fewer than 4 are joined by house bots.
    bots: tuple[str, ...] = ()
    rules: Ruleset = PAGAT  # with its deals per game
    games_per_match: int = 4  # the duplicate set: bots rotate one seat per game
    clock: Clock = field(default_factory=Clock)
    max_strikes: int = DEFAULT_MAX_STRIKES  # faults before a bot's seat is auto-played
    rating_model: str = DEFAULT_MODEL  # a name in arena.ratings.MODELS
    # Decides the seating only (every match's deals get a secret seed of their own, unless
    # ``public_deals``); None: drawn at creation.
    seed: int | None = None
    name: str = ""  # "": made from the settings at creation
    tables: int | None = None  # None: as many as the scheduler picks, up to ``max_tables``
    max_tables: int = DEFAULT_MAX_TABLES
    # Extra matches where the ranking is unsure once the scheduled ones are played
    # (arena.tournaments.extend), separating the first ``adaptive_top`` places (None: all).
    adaptive_matches: int = 0
    adaptive_top: int | None = None
    allow_same_owner: bool = False  # two bots of one owner may share a table
    # Deal seeds derived from ``seed``, so the same spec repeats the same tournament (``arena
    # demo``): anyone knowing the seed knows every hand, so never for a contest.
    public_deals: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "bots", tuple(self.bots))
        if problem := self._problem():
            raise StoreError(problem)

    def _problem(self) -> str | None:
        """What is wrong with these settings, in one line (None: nothing)."""
        checks = [
            (
                self.name == "" or (_text(self.name) and len(self.name) <= MAX_NAME),
                f"a tournament name must be 1-{MAX_NAME} characters",
            ),
            (
                _whole(self.games_per_match, 1),
                f"games_per_match must be at least 1, not {self.games_per_match!r}",
            ),
            (all(_whole(v, 0) for v in asdict(self.clock).values()), _bad_clock(self.clock)),
            (
                _whole(self.max_strikes, 0),
                f"max_strikes must be a whole number (>= 0), not {self.max_strikes!r}",
            ),
            (
                isinstance(self.rating_model, str) and self.rating_model in MODELS,
                f"unknown rating model {self.rating_model!r}: the rating model must be one of "
                f"{', '.join(sorted(MODELS))}",
            ),
            (
                self.seed is None or (_whole(self.seed, 0) and self.seed < MAX_SEED),
                f"seed must be in 0..2**63-1, not {self.seed}",
            ),
            (
                _whole(self.adaptive_matches, 0),
                f"adaptive extra matches cannot be negative, not {self.adaptive_matches}",
            ),
            (
                self.adaptive_top is None or _whole(self.adaptive_top, 2),
                f"the places to separate must be at least 2, not {self.adaptive_top}",
            ),
        ]
        return next((message for ok, message in checks if not ok), None)

    # ------------------------------------------------------------------ builders
    @classmethod
    def from_options(
        cls,
        bots: Iterable[str] = (),
        *,
        rules: str | None = None,
        deals: int | None = None,
        decision_ms: int | None = None,
        bank_ms: int | None = None,
        extra_matches: int | None = None,
        top: int | None = None,
        **settings: Any,
    ) -> TournamentSpec:
        """The spec ``arena tournament create``'s options or the organiser form's fields ask
        for (they share these names): a rules preset with its deals per game, the clock's
        two numbers, the adaptive budget as ``extra_matches`` and ``top``; any other setting
        by its field name. None (an option not given, a field left empty) is the default."""
        preset = RULESETS.get(DEFAULTS.rules.name if rules is None else rules)
        if preset is None:
            raise StoreError(f"rules must be one of {', '.join(sorted(RULESETS))}")
        given = {key: value for key, value in settings.items() if value is not None}
        return cls(
            bots=tuple(bots),
            rules=preset if deals is None else preset.with_(deals_per_game=deals),
            clock=Clock(
                DEFAULTS.clock.decision_ms if decision_ms is None else decision_ms,
                DEFAULTS.clock.bank_ms if bank_ms is None else bank_ms,
            ),
            adaptive_matches=DEFAULTS.adaptive_matches if extra_matches is None else extra_matches,
            adaptive_top=top,
            **given,
        )

    def resolved(self, number: int = 1) -> TournamentSpec:
        """This spec with its seed drawn and its name made from the settings (where not
        given): what is stored. ``number``: the tournament's place among the organised ones,
        which the made name starts with (ids count ladders' rows too: arena.store.ladders)."""
        seed = random.randrange(2**31) if self.seed is None else self.seed
        settings = f"{plural(len(self.bots), 'bot')}, {self.rules.name}, seed {seed}"
        return replace(self, seed=seed, name=self.name or f"Tournament {number} ({settings})")

    # ------------------------------------------------------------------ storage
    def to_json(self) -> dict[str, Any]:
        """Every setting as JSON values (``from_json`` reads it back); the stored columns'
        names: ``ruleset`` holds the rules."""
        data = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "rules"}
        return data | {
            "bots": list(self.bots),
            "ruleset": self.rules.to_dict(),
            "clock": asdict(self.clock),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TournamentSpec:
        """The spec ``to_json`` or a stored row's columns describe; a missing setting is the
        default. A clock holding ``max_strikes`` (stored before migration 0011) gives it."""
        known = {f.name for f in fields(cls)} - {"rules"} | {"ruleset", "deals_per_game"}
        if unknown := sorted(set(data) - known):
            raise StoreError(f"unknown tournament settings: {', '.join(unknown)}")
        clock = dict(data.get("clock") or {})
        strikes = clock.pop("max_strikes", data.get("max_strikes", DEFAULT_MAX_STRIKES))
        plain = {k: v for k, v in data.items() if k not in ("ruleset", "deals_per_game", "clock")}
        return cls(
            **(plain | {"max_strikes": strikes}),
            rules=_ruleset(data.get("ruleset") or {}, data.get("deals_per_game")),
            clock=_clock(clock),
        )

    def columns(self) -> dict[str, Any]:
        """The Tournament row's settings columns (of a ``resolved`` spec)."""
        if self.seed is None or not self.name:
            raise ValueError("resolve the spec (its seed and name) before storing it")
        data = self.to_json()
        return {key: data[key] for key in STORED} | {"deals_per_game": self.rules.deals_per_game}

    @classmethod
    def from_row(cls, tournament: Any) -> TournamentSpec:
        """The spec of a stored Tournament (without its entrants, which are rows of their own,
        or the schedule knobs, which its matches are the result of)."""
        return cls.from_json({key: getattr(tournament, key) for key in (*STORED, "deals_per_game")})


def _whole(value: object, low: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= low


def _text(name: object) -> bool:
    return isinstance(name, str) and bool(name.strip())


def _ruleset(data: Mapping[str, Any], deals: int | None) -> Ruleset:
    try:
        rules = Ruleset.from_dict(dict(data))
    except (TypeError, ValueError) as exc:
        raise StoreError(f"bad ruleset ({exc})") from None
    if deals is not None and deals != rules.deals_per_game:
        raise StoreError(
            f"deals_per_game {deals} differs from the ruleset's {rules.deals_per_game}; "
            "set it in the ruleset"
        )
    return rules


def _clock(data: dict[str, Any]) -> Clock:
    if set(data) - set(_CLOCK_KEYS):
        raise StoreError(_bad_clock(data))
    return Clock(**data)  # its values are checked with the spec's


def _bad_clock(clock: Clock | Mapping[str, Any]) -> str:
    got = asdict(clock) if isinstance(clock, Clock) else dict(clock)
    return f"the clock takes whole numbers (>= 0) for {', '.join(sorted(_CLOCK_KEYS))}, got {got}"


DEFAULTS = TournamentSpec()  # what an option not given, or a field left empty, stands for
