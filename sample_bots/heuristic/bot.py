"""The platform's rule-based house player, served as a process bot through the SDK."""

from arena.house import HeuristicBot
from arena.sdk import Bot, serve


class Heuristic(Bot):
    name = "heuristic"
    version = "1.0.0"

    def __init__(self) -> None:
        super().__init__()
        self.strategy = HeuristicBot()

    def call(self, obs):
        return self.strategy.call(obs)

    def play(self, obs):
        return self.strategy.play(obs)


if __name__ == "__main__":
    serve(Heuristic())
