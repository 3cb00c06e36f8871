"""Looks for what could tell its validation match from a tournament match: a bot
that could would behave only there. At its first decision of every game it reports on stderr,
its log, everything it was told that a platform could vary:

    TOLD game=<g> rules=<name> deals=<n> decision_ms=<ms> time_left_ms=<ms>

(``time_left_ms`` at the first decision is the bank plus the decision's allowance.)"""

import sys

from arena.sdk import Bot, serve


class TellsValidation(Bot):
    name = "tells-validation"

    def __init__(self):
        super().__init__()
        self.seen = set()

    def report(self, obs):
        if self.game not in self.seen:
            self.seen.add(self.game)
            rules = obs.rules
            print(
                f"TOLD game={self.game} rules={rules.name} deals={rules.deals_per_game}"
                f" decision_ms={self.decision_ms} time_left_ms={self.time_left_ms}",
                file=sys.stderr,
                flush=True,
            )

    def call(self, obs):
        self.report(obs)
        return obs.legal_calls[0]

    def play(self, obs):
        self.report(obs)
        return obs.legal_cards[0]


if __name__ == "__main__":
    serve(TellsValidation())
