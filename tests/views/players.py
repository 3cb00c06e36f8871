"""A Player that passes everything to another one; tests override ``decide``."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from unittest.mock import patch

from arena.players.player import DealEnd
from arena.tournaments import run


class Delegating:
    def __init__(self, inner) -> None:
        self.inner, self.name = inner, inner.name

    def start(self, info, timeout_s):
        self.inner.start(info, timeout_s)

    def decide(self, request, timeout_s):
        return self.inner.decide(request, timeout_s)

    def notify(self, event):
        self.inner.notify(event)

    def cpu_seconds(self):
        return None

    @property
    def sandbox(self) -> str:
        return self.inner.sandbox

    def close(self):
        self.inner.close()


class PauseAfter(Delegating):
    """Holds its ``decisions``-th decision after ``deals`` deals have ended until
    ``release``, so a test can look at a match in the middle of a deal. Made before its
    player (``wrap``), so that the test can wait on ``paused`` at once."""

    def __init__(self, deals: int, decisions: int = 1) -> None:
        self.deals, self.decisions, self.ended, self.made = deals, decisions, 0, 0
        self.paused, self.go = threading.Event(), threading.Event()
        self.inner = None

    def wrap(self, inner) -> PauseAfter:
        self.inner, self.name = inner, inner.name
        return self

    def release(self, then_after: int | None = None) -> None:
        """Let the match go on; pause again after ``then_after`` deals, if given."""
        self.deals, self.made = (-1 if then_after is None else then_after), 0
        self.paused.clear()
        go, self.go = self.go, threading.Event()
        go.set()

    def notify(self, event):
        self.ended += isinstance(event, DealEnd)
        super().notify(event)

    def decide(self, request, timeout_s):
        if self.ended == self.deals:
            self.made += 1
            if self.made == self.decisions:
                go = self.go
                self.paused.set()
                assert go.wait(60), "never released"
        return super().decide(request, timeout_s)


@contextmanager
def first_player_paused(pause: PauseAfter) -> Iterator[PauseAfter]:
    """While the block runs, the match job's first player (entrant 0 of the first match it
    plays) is wrapped in ``pause``."""
    real = run.player_for

    def player_for(*args):
        player = real(*args)
        return pause.wrap(player) if pause.inner is None else player

    with patch.object(run, "player_for", player_for):
        yield pause
