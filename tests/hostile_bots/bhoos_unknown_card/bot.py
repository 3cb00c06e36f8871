"""Calls 1, then answers card requests with cards in no spelling of the contest: the ace of
spades written as we write it ("AS": the contest writes "1S"), "ZZ", and a number."""

import json
from http.server import BaseHTTPRequestHandler, HTTPServer

ANSWERS = ["AS", "ZZ", 12345]


class UnknownCard(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    plays = 0

    def do_GET(self):
        self.answer({"value": "hello"})

    def do_POST(self):
        json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if self.path == "/bid":
            return self.answer({"value": 1})
        UnknownCard.plays += 1
        self.answer({"value": ANSWERS[(UnknownCard.plays - 1) % len(ANSWERS)]})

    def answer(self, value):
        data = json.dumps(value).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


HTTPServer(("127.0.0.1", 7000), UnknownCard).serve_forever()
