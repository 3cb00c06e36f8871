"""Starves its neighbours (issue 21): at its first decision it forks busy processes, each
``setsid()`` into a session (and so, outside a cpu cgroup, a scheduling autogroup) of its
own, which spin through every seat's turns until the sandbox is stopped. It plays legally
and at once, so the referee has nothing to fault it for. Reports ``FORKED <n> spinners``."""

import os
import sys

from arena.sdk import Bot, serve

SPINNERS = 100


def spin():
    os.setsid()
    n = 0
    while True:
        n += 1


class CpuHog(Bot):
    name = "cpu-hog"

    def __init__(self):
        super().__init__()
        self.forked = False

    def call(self, obs):
        if not self.forked:
            self.forked = True
            started = 0
            for _ in range(SPINNERS):
                try:
                    if os.fork() == 0:
                        spin()
                    started += 1
                except OSError:
                    break
            print(f"FORKED {started} spinners", file=sys.stderr, flush=True)
        return obs.legal_calls[0]

    def play(self, obs):
        return obs.legal_cards[0]


if __name__ == "__main__":
    serve(CpuHog())
