"""Plays normally, but first, in every decision, tries to reach the outside world: the
host's loopback port named in target.txt (written there by the test) and 1.1.1.1:53
(``net_connect.py``). Every attempt is logged on stderr. Were one ever to connect, it would
also answer "CONNECTED", which the referee would record as a malformed reply."""

import random
import socket
import sys
from pathlib import Path

from net_connect import attempt

from arena.sdk import Bot, serve

PORT = int(Path(__file__).with_name("target.txt").read_text().strip())
TARGETS = [("127.0.0.1", PORT), ("1.1.1.1", 53)]


def reach_out():
    connected = False
    for host, port in TARGETS:
        outcome = attempt(socket.AF_INET, (host, port), 0.05)
        print(f"connect {host}:{port} -> {outcome}", file=sys.stderr, flush=True)
        connected = connected or outcome == "connected"
    return connected


class NetConnect(Bot):
    name = "net-connect"

    def call(self, obs):
        return "CONNECTED" if reach_out() else random.choice(obs.legal_calls)

    def play(self, obs):
        return "CONNECTED" if reach_out() else random.choice(obs.legal_cards)


if __name__ == "__main__":
    serve(NetConnect())
