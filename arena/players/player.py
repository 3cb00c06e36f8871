"""The one interface the referee sees: a Player answers decisions and hears events.

An in-process strategy, a sandboxed process and a remote bot all implement ``Player``;
failures surface as ``BotFault`` exceptions so the referee can apply one failure policy.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

from arena.game import Card, Observation, Ruleset, Trick

Kind = Literal["call", "play"]

# A fault's reason ends with the bot's last log line, which its author needs; the log is the
# owner's only, so pages everybody reads show the reason without it (``public_reason``).
LOG_LINE = "; last log line: "


def public_reason(reason: str) -> str:
    """``reason`` without the bot's own words."""
    head, found, _ = reason.partition(LOG_LINE)
    return f"{head}; its last log line is in the owner's logs" if found else reason


@dataclass(frozen=True)
class MatchInfo:
    """What a player learns when the match starts."""

    match_id: str
    rules: Ruleset
    decision_ms: int
    bank_ms: int


@dataclass(frozen=True)
class Request:
    """One decision: the seat's whole observation plus the clock."""

    id: int
    kind: Kind
    game: int
    observation: Observation
    time_left_ms: int
    decision_ms: int


@dataclass(frozen=True)
class TrickEnd:
    trick: Trick


@dataclass(frozen=True)
class DealEnd:
    game: int
    deal: int
    won: tuple[int, ...]
    calls: tuple[int, ...]
    points: tuple[float, ...]
    scores: tuple[float, ...]


@dataclass(frozen=True)
class GameEnd:
    game: int
    scores: tuple[float, ...]


@dataclass(frozen=True)
class MatchEnd:
    pass


Event = TrickEnd | DealEnd | GameEnd | MatchEnd
Move = int | Card | str | None


class BotFault(Exception):
    """A decision went wrong; ``kind`` is a short code stored with the fault."""

    kind = "fault"

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class BotTimeout(BotFault):
    kind = "timeout"


class BadReply(BotFault):
    kind = "malformed"


class BotRaised(BotFault):
    """The bot answered that it could not decide (its code raised): a fault like a reply
    without a move, whose reason names the error."""

    kind = "exception"


class StaleReply(BotFault):
    kind = "stale_id"


class BotDied(BotFault):
    """The bot cannot answer any more (crashed, exited, connection lost): forfeit the seat."""

    kind = "crash"


class Oversized(BotDied):
    """The bot sent more than a message may hold: the connection is dropped, the seat
    forfeited."""

    kind = "oversized"


class Player(Protocol):
    name: str
    sandbox: str  # how it is confined: "bwrap", "rlimits" (unsafe), "in-process", "remote"

    def start(self, info: MatchInfo, timeout_s: float) -> None:
        """Connect and handshake; raise ``BotDied`` if the bot cannot play."""

    def decide(self, request: Request, timeout_s: float) -> Move:
        """The bot's raw answer (validated by the referee); raise ``BotFault`` on failure."""

    def notify(self, event: Event) -> None:
        """Tell the bot something it may ignore; never raises."""

    def cpu_seconds(self) -> float | None:
        """CPU time the bot has used so far, where the OS tells; else None. The referee asks
        at the start and end of each game."""

    def close(self) -> None:
        """Release everything (processes, connections); idempotent."""
