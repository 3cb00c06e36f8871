"""Starves its neighbours: before it serves, it forks busy processes, each
``setsid()`` into a session (and so, outside a cpu cgroup, a scheduling autogroup) of its
own and niced so that its own decisions stay quick, which spin through every seat's turns
until the sandbox is stopped. It plays legally and at once, so the referee has nothing to
fault it for. Reports ``FORKED <n> spinners``. How many: ``spinners.txt`` beside this file
if present (a benchmark varies it), else 100. (It forks before gRPC starts: a child forked
from a gRPC server brings up threads of its own and would exhaust the task limit.)"""

import os
import sys
from pathlib import Path

COUNT_FILE = Path(__file__).with_name("spinners.txt")
# 100 leaves room under the 128 tasks for its own gRPC threads
SPINNERS = int(COUNT_FILE.read_text()) if COUNT_FILE.exists() else 100


def spin():
    os.setsid()
    os.nice(19)
    n = 0
    while True:
        n += 1


def fork_spinners():
    started = 0
    for _ in range(SPINNERS):
        try:
            if os.fork() == 0:
                spin()
            started += 1
        except OSError:
            break
    print(f"FORKED {started} spinners", file=sys.stderr, flush=True)


fork_spinners()

from arena.sdk import Bot, serve  # noqa: E402


class CpuHog(Bot):
    name = "cpu-hog"

    def call(self, obs):
        return obs.legal_calls[0]

    def play(self, obs):
        return obs.legal_cards[0]


if __name__ == "__main__":
    serve(CpuHog())
