"""Plays legally, but answers its 3rd card request of the game one second late (past any
deadline of the tests' fast clock), then plays on normally. Threaded, so the platform's next request
is served while the late one still sleeps."""

import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from arena.game import BHOOS, legal_plays
from arena.players.bhoos.wire import card_in, card_out

LATE_ON = 3
lock = threading.Lock()


class AnswersLate(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    plays = 0

    def do_GET(self):
        self.answer({"value": "hello"})

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if self.path == "/bid":
            return self.answer({"value": 1})
        with lock:
            AnswersLate.plays += 1
            late = AnswersLate.plays == LATE_ON
        if late:
            print("answering late", file=sys.stderr, flush=True)
            time.sleep(1.0)
        hand = [card_in(c) for c in body["cards"]]
        legal = legal_plays(hand, [card_in(c) for c in body["played"]], BHOOS)
        try:
            self.answer({"value": card_out(legal[0])})
        except OSError:
            print("the late answer found the connection closed", file=sys.stderr, flush=True)

    def answer(self, value):
        data = json.dumps(value).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


ThreadingHTTPServer(("127.0.0.1", 7000), AnswersLate).serve_forever()
