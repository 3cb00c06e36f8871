"""Answers one decision late: on its last card of game 0 it sleeps 150 ms past the limit the
request states (decision_ms, which already includes the bank), then replies; otherwise it
plays normally. The referee must time it out once and drop the late reply silently."""

import random
import sys
import time

from arena.sdk import Bot, serve

LATE_BY_S = 0.15


class AnswersLate(Bot):
    name = "answers-late"

    def call(self, obs):
        return random.choice(obs.legal_calls)

    def play(self, obs):
        last_deal = obs.deal == obs.rules.deals_per_game - 1
        if self.game == 0 and last_deal and len(obs.hand) == 1:
            time.sleep(self.decision_ms / 1000 + LATE_BY_S)
            print(f"answering late after {self.decision_ms} ms allowed", file=sys.stderr)
        return random.choice(obs.legal_cards)


if __name__ == "__main__":
    serve(AnswersLate())
