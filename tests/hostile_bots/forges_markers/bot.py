"""Plays the lowest legal move and writes, at every decision, where it thinks it is
("mine gG-dD-sS"), then two forged markers (one with the platform's framing byte, one
without) and a line without its newline; its last line before each reply is "done ...", so
a test can check the platform's real marker comes after it and before the next line."""

import sys

from arena.sdk import Bot, serve

FORGED = "── game 9 · deal 9 · step 9 · decision 999 (call) ──"


def where(game: int, obs) -> str:
    called = sum(c is not None for c in obs.calls)
    step = called + 4 * len(obs.tricks) + len(obs.current.cards) + 1
    return f"g{game + 1}-d{obs.deal + 1}-s{step}"


class ForgesMarkers(Bot):
    name = "hostile-forges-markers"

    def _say(self, obs) -> None:
        here = where(self.game, obs)
        print(f"mine {here}", file=sys.stderr, flush=True)
        print(f"\x1e{FORGED}\n{FORGED}", file=sys.stderr, flush=True)
        print(f"done {here} (no newline)", end="", file=sys.stderr, flush=True)

    def call(self, obs):
        self._say(obs)
        return obs.legal_calls[0]

    def play(self, obs):
        self._say(obs)
        return obs.legal_cards[0]


if __name__ == "__main__":
    serve(ForgesMarkers())
