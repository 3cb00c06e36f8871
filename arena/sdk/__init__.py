"""The Python SDK for bot authors: subclass ``Bot``, write ``call`` and ``play``, ``serve``.

from arena.sdk import Bot, serve

class Lowest(Bot):
    name = "lowest"

    def call(self, obs):
        return obs.legal_calls[0]

    def play(self, obs):
        return obs.legal_cards[0]

if __name__ == "__main__":
    serve(Lowest())
"""

from arena.game import Card, Observation, Trick
from arena.sdk.bot import Bot
from arena.sdk.server import serve

__all__ = ["Bot", "Card", "Observation", "Trick", "serve"]
