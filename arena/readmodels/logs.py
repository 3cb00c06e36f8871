"""A bot's captured logs (per match, of its validation matches, and its builds' output): the
read model behind the owner-only pages. Whether the reader may see them is the caller's check;
every lookup here is scoped to one bot, so a log of another bot is simply not found."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.players.markers import marker_of
from arena.sandbox import LOG_MARK
from arena.store import Bot, BotLog, BotVersion, StoreError
from arena.text import printable

LISTED = 200
BEFORE = 5  # lines of a log shown before a decision's marker


@dataclass(frozen=True)
class LogEntry:
    version: str
    match_id: int | None  # None: the version's validation match (or its build)
    size: int
    build: bool = False  # the output of the version's build step


@dataclass(frozen=True)
class BotLogs:
    bot_id: int
    name: str
    owner_id: int | None
    entries: list[LogEntry]


def bot_owner(s: Session, bot_id: int) -> Bot:
    bot = s.get(Bot, bot_id)
    if bot is None:
        raise StoreError(f"no bot with id {bot_id}")
    return bot


def log_index(s: Session, bot_id: int) -> BotLogs:
    """The bot's logs: build logs, then validation logs, then matches newest first (at most
    LISTED)."""
    bot = bot_owner(s, bot_id)
    builds = select(BotVersion.version, BotVersion.build_log).where(
        BotVersion.bot_id == bot_id, BotVersion.build_log.is_not(None)
    )
    built = [
        LogEntry(v, None, len(text or ""), build=True)
        for v, text in s.execute(builds.order_by(BotVersion.id.desc()).limit(LISTED))
    ]
    query = (
        select(BotVersion.version, BotLog.match_id, BotLog.text)
        .join(BotVersion, BotVersion.id == BotLog.bot_version_id)
        .where(BotVersion.bot_id == bot_id)
        .order_by(BotLog.match_id.is_not(None), BotLog.match_id.desc(), BotVersion.id.desc())
        .limit(LISTED)
    )
    entries = [LogEntry(v, m, len(text)) for v, m, text in s.execute(query)]
    return BotLogs(bot.id, bot.name, bot.owner_id, (built + entries)[:LISTED])


def build_log_text(s: Session, bot_id: int, version: str) -> str:
    """What one of the bot's versions' build step printed."""
    text = s.scalar(
        select(BotVersion.build_log).where(
            BotVersion.bot_id == bot_id, BotVersion.version == version
        )
    )
    if text is None:
        raise StoreError("no such log")
    return text


def log_text(s: Session, bot_id: int, version: str, match_id: int | None) -> str:
    """One log of one of the bot's versions (``match_id`` None: its validation match)."""
    where = BotLog.match_id.is_(None) if match_id is None else BotLog.match_id == match_id
    text = s.scalar(
        select(BotLog.text)
        .join(BotVersion, BotVersion.id == BotLog.bot_version_id)
        .where(BotVersion.bot_id == bot_id, BotVersion.version == version, where)
    )
    if text is None:
        raise StoreError("no such log")
    return text


def decision_lines(text: str, decision: int, before: int = BEFORE) -> list[str] | None:
    """What a bot wrote at decision ``decision`` (the match-wide id), from its log ``text``:
    the decision's marker line (as the log page shows it) and the bot's lines after it up to
    the next platform line, after the ``before`` lines that came before the marker. None
    when the log has no such marker: the capture writes one only before the bot's next
    output, so the bot wrote nothing once asked. Lines are printable, as on the log page."""
    # at "\n" only: splitlines() would also break at LOG_MARK and at characters a bot chooses
    lines = text.removesuffix("\n").split("\n") if text else []
    at = next((i for i, raw in enumerate(lines) if _marks(raw, decision)), None)
    if at is None:
        return None
    end = next((i for i in range(at + 1, len(lines)) if lines[i].startswith(LOG_MARK)), None)
    return [printable(raw) for raw in lines[max(0, at - before) : end]]


def _marks(raw: str, decision: int) -> bool:
    """Whether the log line ``raw`` is the platform's marker of ``decision``."""
    marker = marker_of(printable(raw)) if raw.startswith(LOG_MARK) else None
    return marker is not None and marker.decision == decision
