"""The line the platform puts in a bot's log before each decision it asks for, so that the
bot's owner can tell which decision a line of the log belongs to, and jump to the replay.

Game and deal are counted from 1, as on the pages; the step is the move's place in its deal
as the replay viewer counts it (its URL hash ``#g2-d3-s36``): the four calls are steps 1-4,
the 52 cards steps 5-56. The decision is the match-wide decision id (the replay's "decision
N", and a fault's). The label is plain text: what keeps a bot from forging one is how the
log capture frames it (``arena.sandbox.LOG_MARK``), not its wording.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from arena.players.player import Request

_LABEL = re.compile(r"── game (\d+) · deal (\d+) · step (\d+) · decision (\d+) ")


@dataclass(frozen=True)
class Marker:
    game: int
    deal: int
    step: int
    decision: int  # the match-wide id

    @property
    def anchor(self) -> str:
        """The id of the marker's line on the log page, as the replay names the step."""
        return f"g{self.game}-d{self.deal}-s{self.step}"


def decision_label(request: Request) -> str:
    """E.g. ``── game 2 · deal 3 · step 17 · decision 43 (play, trick 4) ──``."""
    obs = request.observation
    called = sum(call is not None for call in obs.calls)
    played = 4 * len(obs.tricks) + len(obs.current.cards)
    what = "call" if request.kind == "call" else f"play, trick {len(obs.tricks) + 1}"
    return (
        f"── game {request.game + 1} · deal {obs.deal + 1} · step {called + played + 1} · "
        f"decision {request.id} ({what}) ──"
    )


def marker_of(label: str) -> Marker | None:
    """The decision a label names; None for another platform line."""
    found = _LABEL.match(label)
    return None if found is None else Marker(*(int(found[k]) for k in range(1, 5)))
