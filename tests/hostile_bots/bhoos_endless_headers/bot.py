"""Calls 1, then answers the first card request with a status line and endless headers."""

import json
from http.server import BaseHTTPRequestHandler, HTTPServer

HEADERS = b"X-More: " + b"a" * 100 + b"\r\n"


class EndlessHeaders(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        self.answer(b'{"value": "hello"}')

    def do_POST(self):
        json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if self.path == "/bid":
            return self.answer(b'{"value": 1}')
        self.wfile.write(b"HTTP/1.1 200 OK\r\n")
        sent = 0
        try:
            while True:
                self.wfile.write(HEADERS * 1000)
                sent += 1
        except OSError:
            print(f"the platform hung up after {sent * len(HEADERS)} header bytes", flush=True)

    def answer(self, data):
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


HTTPServer(("127.0.0.1", 7000), EndlessHeaders).serve_forever()
