"""A Player wrapping a trusted Python strategy that runs inside the referee's process."""

from __future__ import annotations

from arena.players.player import Event, MatchInfo, Move, Request


class InProcessPlayer:
    """For house bots and SDK bots run without a process; cannot be pre-empted, so trusted only."""

    sandbox = "in-process"

    def __init__(self, strategy, name: str) -> None:
        self.strategy, self.name = strategy, name

    def start(self, info: MatchInfo, timeout_s: float) -> None:
        pass

    def decide(self, request: Request, timeout_s: float) -> Move:
        obs = request.observation
        if request.kind == "call":
            return self.strategy.call(obs)
        return self.strategy.play(obs)

    def notify(self, event: Event) -> None:
        handler = getattr(self.strategy, "on_event", None)
        if handler is not None:
            handler(event)

    def cpu_seconds(self) -> float | None:
        return None  # it shares the referee's thread: its CPU time cannot be told apart

    def close(self) -> None:
        pass
