"""Plays legally, then on its 3rd request kills its parent, the platform's relay, with
SIGKILL, and answers anyway."""

import json
import os
import signal
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

from arena.game import BHOOS, legal_plays
from arena.players.bhoos.wire import card_in, card_out

KILL_ON = 3


class KillsRelay(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    requests = 0

    def do_GET(self):
        self.answer({"value": "hello"})

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        KillsRelay.requests += 1
        if KillsRelay.requests == KILL_ON:
            print(f"killing the relay, pid {os.getppid()}", file=sys.stderr, flush=True)
            os.kill(os.getppid(), signal.SIGKILL)
        if self.path == "/bid":
            return self.answer({"value": 1})
        hand = [card_in(c) for c in body["cards"]]
        legal = legal_plays(hand, [card_in(c) for c in body["played"]], BHOOS)
        self.answer({"value": card_out(legal[0])})

    def answer(self, value):
        data = json.dumps(value).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


HTTPServer(("127.0.0.1", 7000), KillsRelay).serve_forever()
