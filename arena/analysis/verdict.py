"""The master's verdict on an entrant's decisions: the value of every option, the points a
decision lost against the best one, and a label once the loss is both large and clear.

Losses are in expected deal points (not tenths) as the master values them (``evaluate``).
A label needs the loss to pass its threshold and to be at least ``CLEAR_Z`` standard errors
of its own estimate too, so that sampling noise alone does not name a mistake. The
thresholds come from the loss distributions measured in ``benchmarks/analysis.py``
(docs/analysis.md).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

FORMAT = "callbreak-analysis"
VERSION = 1
# The smallest loss (points) of each label, lowest first: the last one a loss reaches wins.
THRESHOLDS = (("inaccuracy", 0.5), ("mistake", 1.5), ("blunder", 3.0))
LABELS = tuple(name for name, _ in THRESHOLDS)
CLEAR_Z = 2.0  # standard errors a labelled loss must exceed
DIGITS = 3  # points are kept to a thousandth: far below any standard error


def label_of(loss: float, loss_se: float) -> str | None:
    """The label of a decision that lost ``loss`` points (``loss_se`` its standard error):
    None unless the loss reaches a threshold and exceeds ``CLEAR_Z`` standard errors."""
    if loss < CLEAR_Z * loss_se:
        return None
    reached = [name for name, least in THRESHOLDS if loss >= least]
    return reached[-1] if reached else None


@dataclass(frozen=True)
class OptionValue:
    """One legal move and the master's estimate of the deal score it leads to."""

    move: str  # a card as the bots write it ("AS"), or a call as text ("3")
    value: float  # expected deal points
    se: float  # its standard error


@dataclass(frozen=True)
class Verdict:
    """One decision of the analysed entrant. ``options`` holds every legal move (empty when
    the move was forced); ``auto`` marks a move the referee made for the seat (a fault's
    fallback, or a forfeited seat's): shown, but not the bot's, so never labelled or
    counted."""

    game: int  # index into the record's games
    deal: int  # index into the game's deals
    decision: int | None  # the record's decision id; None for a forfeited seat's move
    step: int  # 1-based in the deal: calls 1-4 in calling order, cards 5-56 in play order
    kind: str  # "call" | "play"
    chosen: str
    best: str
    loss: float  # value(best) - value(chosen), points
    loss_se: float  # standard error of that paired difference
    label: str | None
    options: tuple[OptionValue, ...]
    auto: bool

    @property
    def counts(self) -> bool:
        """Whether the loss counts in the summary: the bot's own move, and it had a choice."""
        return not self.auto and bool(self.options)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Verdict:
        options = tuple(OptionValue(**o) for o in d["options"])
        return cls(**{**d, "options": options})


@dataclass(frozen=True)
class Analysis:
    """Every decision of one entrant of a match, judged with ``samples`` sampled deals per
    decision from ``seed`` (the same record, entrant, samples and seed give the same
    analysis)."""

    entrant: int
    samples: int
    seed: int
    verdicts: tuple[Verdict, ...]

    def summary(self) -> dict[str, Any]:
        """Mean loss per decision with a choice (overall, calls, cards: each its mean, the
        mean's standard error and the count), and how many decisions got each label."""
        counted = [v for v in self.verdicts if v.counts]
        return {
            "overall": _mean([v.loss for v in counted]),
            "calls": _mean([v.loss for v in counted if v.kind == "call"]),
            "cards": _mean([v.loss for v in counted if v.kind == "play"]),
            "labels": {name: sum(v.label == name for v in counted) for name in LABELS},
        }

    def to_dict(self) -> dict[str, Any]:
        """JSON-able; ``summary`` rides along for readers, ``from_dict`` recomputes it."""
        return {
            "format": FORMAT,
            "version": VERSION,
            "entrant": self.entrant,
            "samples": self.samples,
            "seed": self.seed,
            "verdicts": [v.to_dict() for v in self.verdicts],
            "summary": self.summary(),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Analysis:
        if d.get("format") != FORMAT or d.get("version") != VERSION:
            raise ValueError(f"not a {FORMAT} version {VERSION} document")
        verdicts = tuple(Verdict.from_dict(v) for v in d["verdicts"])
        return cls(d["entrant"], d["samples"], d["seed"], verdicts)


def _mean(losses: list[float]) -> dict[str, Any]:
    """Mean, its standard error (None under two values) and count."""
    n = len(losses)
    if n == 0:
        return {"mean": None, "se": None, "count": 0}
    mean = sum(losses) / n
    if n == 1:
        return {"mean": round(mean, DIGITS), "se": None, "count": 1}
    var = sum((x - mean) ** 2 for x in losses) / (n - 1)
    return {"mean": round(mean, DIGITS), "se": round(math.sqrt(var / n), DIGITS), "count": n}
