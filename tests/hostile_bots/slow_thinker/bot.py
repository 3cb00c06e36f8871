"""Spends 90% of each decision's base allowance before answering, legally: two of
these uploaded at once held the single validation thread for minutes, and a third user's
ordinary upload waited behind them (benchmarks/validation_fairness.py)."""

import time

from arena.sdk import Bot, serve

SHARE = 0.9
BASE_MS = 1000  # the default per-decision allowance; the rest of decision_ms is the bank


class SlowThinker(Bot):
    name = "slow-thinker"

    def think(self):
        time.sleep(SHARE * min(BASE_MS, self.decision_ms) / 1000)

    def call(self, obs):
        self.think()
        return obs.legal_calls[0]

    def play(self, obs):
        self.think()
        return obs.legal_cards[0]


if __name__ == "__main__":
    serve(SlowThinker())
