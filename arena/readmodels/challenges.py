"""What a bot's page and the API show of its challenges: the newest, each with its
opponents, its state and the points of every seat, the opponents one may choose, and the
challenges left to its owner today."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.challenges.start import PER_DAY, challenges_left
from arena.comparisons.pairs import TENTHS
from arena.house.names import HOUSE_BOTS, HOUSE_PREFIX
from arena.store import Bot, BotVersion, Match, StoreError
from arena.store.ladders import seated_versions
from arena.store.models import Challenge, as_utc
from arena.store.results import match_points

SHOWN = 10
# every house bot, and second copies of the quick ones (three opponents must be different)
HOUSE_CHOICES = (
    *(HOUSE_PREFIX + kind for kind in HOUSE_BOTS),
    "house:heuristic#2",
    "house:random#2",
)


@dataclass(frozen=True)
class ChallengeRow:
    match_id: int
    version: str
    opponents: list[str]
    status: str  # the match's: pending, running, done, failed
    points: dict[str, float]  # by name@version, in points (the match's games summed)
    created_at: str

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class ChallengesPanel:
    per_day: int
    left: int | None  # for the user looking (None: nobody logged in)
    opponents: list[str]  # house bots and other owners' current versions
    challenges: list[ChallengeRow]

    def as_dict(self) -> dict[str, Any]:
        return asdict(self) | {"challenges": [c.as_dict() for c in self.challenges]}


def challenges_panel(s: Session, bot_id: int, user_id: int | None) -> ChallengesPanel:
    bot = s.get(Bot, bot_id)
    if bot is None:
        raise StoreError(f"no bot with id {bot_id}")
    query = (
        select(Challenge, Match)
        .join(BotVersion, BotVersion.id == Challenge.bot_version_id)
        .join(Match, Match.tournament_id == Challenge.tournament_id)
        .where(BotVersion.bot_id == bot_id)
        .order_by(Challenge.id.desc())
        .limit(SHOWN)
    )
    rows = s.execute(query).all()
    seats = {v for _, match in rows for v in match.seats}
    refs = {v.id: v.ref for v in s.scalars(select(BotVersion).where(BotVersion.id.in_(seats)))}
    points = match_points(s, [match.id for _, match in rows])
    others = [
        v.ref
        for v in seated_versions(s)
        if v.bot.owner_id is None or v.bot.owner_id != bot.owner_id
    ]
    return ChallengesPanel(
        PER_DAY,
        None if user_id is None else challenges_left(s, user_id),
        [*HOUSE_CHOICES, *others],
        [
            ChallengeRow(
                match.id,
                refs[challenge.bot_version_id],
                [refs[v] for v in match.seats if v != challenge.bot_version_id],
                match.status,
                {refs[v]: points.get((match.id, v), (0, 0))[0] / TENTHS for v in match.seats},
                as_utc(challenge.created_at).isoformat(timespec="seconds"),
            )
            for challenge, match in rows
        ],
    )


def _same_owner(version: BotVersion, bot: Bot) -> bool:
    return bot.owner_id is not None and version.bot.owner_id == bot.owner_id
