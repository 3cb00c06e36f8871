"""What a match produces: per-game results, totals, faults and the replay record."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

UNSANDBOXED = "rlimits"  # Player.sandbox of a process bot run without bwrap
FORFEIT = "forfeit"


def counts_as_fault(kind: str) -> bool:
    """A fault is something a bot did wrong (a timeout, an illegal or malformed move, a
    crash, a failed start), one per event. A forfeit is what follows from faults: it records
    when the seat was taken over and is never counted as one more fault."""
    return kind != FORFEIT


@dataclass(frozen=True)
class Fault:
    """A fault or a forfeit (``kind == FORFEIT``) of one entrant; ``decision`` is None for
    start-up faults."""

    entrant: int
    kind: str
    reason: str
    game: int | None = None
    deal: int | None = None
    decision: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class GameResult:
    """One game of the duplicate set. Lists are by entrant, not by seat."""

    index: int
    seats: tuple[int, ...]  # entrant in each seat
    points: tuple[int, ...]  # tenths, by entrant
    calls_made: tuple[int, ...]
    deals: int


@dataclass
class MatchResult:
    match_id: str
    players: list[str]
    games: list[GameResult] = field(default_factory=list)
    faults: list[Fault] = field(default_factory=list)
    forfeited: list[bool] = field(default_factory=lambda: [False] * 4)
    record: dict[str, Any] = field(default_factory=dict)
    sandbox: list[str] = field(default_factory=lambda: ["in-process"] * 4)

    @property
    def unsandboxed(self) -> bool:
        """Whether a bot ran without the bwrap sandbox (only ever on the operator's say)."""
        return UNSANDBOXED in self.sandbox

    def fault_counts(self) -> list[int]:
        """Faults of each entrant (forfeits not counted: see ``counts_as_fault``)."""
        counts = [0, 0, 0, 0]
        for fault in self.faults:
            counts[fault.entrant] += counts_as_fault(fault.kind)
        return counts

    @property
    def totals(self) -> list[int]:
        """Match points in tenths, by entrant."""
        return [sum(g.points[e] for g in self.games) for e in range(4)]

    def standings(self) -> list[int]:
        """Entrants from best to worst total (ties keep entrant order)."""
        totals = self.totals
        return sorted(range(4), key=lambda e: -totals[e])
