"""Calls 1, then answers every card request slowly: the status line at once, then a
header one byte every 10 ms, forever (each byte comes well within any read timeout)."""

import json
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Slow(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        self.answer(b'{"value": "hello"}')

    def do_POST(self):
        json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if self.path == "/bid":
            return self.answer(b'{"value": 1}')
        self.wfile.write(b"HTTP/1.1 200 OK\r\nX-Wait: ")
        try:
            while True:
                self.wfile.write(b"z")
                self.wfile.flush()
                time.sleep(0.01)
        except OSError:
            print("the platform hung up on my drip", flush=True)

    def answer(self, data):
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


ThreadingHTTPServer(("127.0.0.1", 7000), Slow).serve_forever()
