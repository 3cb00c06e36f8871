"""Calls 1, then answers every card request with a redirect to the host's loopback port
named in target.txt (written there by the test, which listens on it): a platform that
followed redirects would connect there."""

import json
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

PORT = int(Path(__file__).with_name("target.txt").read_text().strip())


class Redirect(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        self.answer(200, b'{"value": "hello"}')

    def do_POST(self):
        json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if self.path == "/bid":
            return self.answer(200, b'{"value": 1}')
        self.answer(307, b"", [("Location", f"http://127.0.0.1:{PORT}/play")])

    def answer(self, status, data, headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


HTTPServer(("127.0.0.1", 7000), Redirect).serve_forever()
