"""Which version of a bot holds its ladder seats: the owner's policy for a new version
(``PROMOTIONS``: at once, only if its comparison does not find it worse, or never by
itself), the owner's own choice (a rollback is making an older version current), and
the versions still owed a comparison by the gate (``arena.comparisons.gate``).

The seat itself changes with the verdict of the validation (``arena.store.bots.take_seat``),
in its transaction, so no ladder ever seats a version its owner's policy holds back."""

from __future__ import annotations

from sqlalchemy import exists, select
from sqlalchemy.orm import Session

from arena.comparisons.errors import ComparisonRefused
from arena.store import Bot, BotVersion, Database, StoreError
from arena.store.bots import find_bot_version
from arena.store.models import PROMOTIONS, Comparison

# When a new valid version takes the seat, by policy: what the pages and messages say.
TAKES_SEAT = {
    "now": "at once",
    "if-not-worse": "only if its comparison does not find it worse",
    "keep": "only when its owner makes it current",
}


def on_verdict(s: Session, comparison: Comparison) -> None:
    """A gate comparison that ended promotes its candidate under "if-not-worse", unless
    it was found worse or the bot's current version is no longer the one it was compared
    with (its owner chose another meanwhile)."""
    bot = s.get_one(Bot, comparison.bot_id)
    if (
        comparison.gate
        and bot.promotion == "if-not-worse"
        and comparison.verdict != "worse"
        and bot.current_version_id == comparison.baseline_version_id
    ):
        bot.current_version_id = comparison.candidate_version_id
        comparison.promoted = True


def ungated(s: Session) -> list[BotVersion]:
    """Valid versions that replaced (or were kept beside) a current version and that no
    comparison has taken yet, oldest first."""
    compared = exists().where(Comparison.candidate_version_id == BotVersion.id, Comparison.gate)
    query = select(BotVersion).where(
        BotVersion.status == "valid", BotVersion.replaces_id.is_not(None), ~compared
    )
    return list(s.scalars(query.order_by(BotVersion.id)))


def make_current(db: Database, ref: str, user_id: int | None, admin: bool = False) -> str:
    """Make the valid version ``ref`` (``name@version``) its bot's current one: what the
    ladders seat from their next table (a rollback, or promoting a kept version). Only its
    owner or an organiser (``admin``; ``user_id`` None: the command line) may. What
    happened, in a line."""
    with db.session() as s:
        version = find_bot_version(s, ref)
        bot = version.bot
        check_rights(bot, user_id, admin)
        if version.status != "valid":
            raise ComparisonRefused(
                f"{version.ref} is {version.status}: only a valid version plays"
            )
        if bot.current_version_id == version.id:
            return f"{version.ref} is already current"
        bot.current_version_id = version.id
        return f"{version.ref} is now current: the ladders seat it from their next table"


def set_promotion(
    db: Database, name: str, promotion: str, user_id: int | None, admin: bool = False
) -> None:
    """Set bot ``name``'s policy for its next validated versions."""
    if promotion not in PROMOTIONS:
        raise ComparisonRefused(f"promotion is one of {', '.join(PROMOTIONS)}, not {promotion!r}")
    with db.session() as s:
        bot = s.scalar(select(Bot).where(Bot.name == name))
        if bot is None:
            raise StoreError(f"no bot named {name!r}")
        check_rights(bot, user_id, admin)
        bot.promotion = promotion


def check_rights(bot: Bot, user_id: int | None, admin: bool) -> None:
    """Only a bot's owner, an organiser (``admin``) or the command line (``user_id`` None)
    chooses its versions and spends worker time on its comparisons."""
    if user_id is not None and not admin and bot.owner_id != user_id:
        raise ComparisonRefused(f"only the owner of {bot.name} may do this", 403)
