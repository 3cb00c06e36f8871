"""Calls normally, then never answers a card request: play() sleeps forever."""

import random
import threading

from arena.sdk import Bot, serve


class NeverAnswers(Bot):
    name = "never-answers"

    def call(self, obs):
        return random.choice(obs.legal_calls)

    def play(self, obs):
        threading.Event().wait()  # forever


if __name__ == "__main__":
    serve(NeverAnswers())
