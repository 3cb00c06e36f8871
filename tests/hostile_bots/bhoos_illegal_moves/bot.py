"""Calls 9 (bhoos calls are 1 to 8), then plays a card it does not hold: a well-formed
card in the contest's spelling, never in its hand nor played yet."""

import json
from http.server import BaseHTTPRequestHandler, HTTPServer

DECK = [r + s for s in "SHCD" for r in "23456789TJQK1"]


class IllegalMoves(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        self.answer({"value": "hello"})

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if self.path == "/bid":
            return self.answer({"value": 9})
        seen = set(body["cards"]) | set(body["played"])
        seen |= {card for trick in body["history"] for card in trick[1]}
        self.answer({"value": next(c for c in DECK if c not in seen)})

    def answer(self, value):
        data = json.dumps(value).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


HTTPServer(("127.0.0.1", 7000), IllegalMoves).serve_forever()
