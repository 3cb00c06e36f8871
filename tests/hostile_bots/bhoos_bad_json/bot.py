"""Calls 1, then answers card requests with bodies that are not JSON: a cut-off object,
plain text, and 50 kB of junk (under the 64 KiB body cap)."""

import json
from http.server import BaseHTTPRequestHandler, HTTPServer

JUNK = [b'{"value": "2S"', b"not json at all", b"{" * 50_000]


class BadJson(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    plays = 0

    def do_GET(self):
        self.answer(b'{"value": "hello"}')

    def do_POST(self):
        json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if self.path == "/bid":
            return self.answer(b'{"value": 1}')
        BadJson.plays += 1
        self.answer(JUNK[(BadJson.plays - 1) % len(JUNK)])

    def answer(self, data):
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


HTTPServer(("127.0.0.1", 7000), BadJson).serve_forever()
