"""Calls 1, then answers the first card request with an endless chunked body (1 MiB
chunks) that starts like a valid answer."""

import json
from http.server import BaseHTTPRequestHandler, HTTPServer

CHUNK = b" " * (1 << 20)


class HugeBody(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        self.answer(b'{"value": "hello"}')

    def do_POST(self):
        json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if self.path == "/bid":
            return self.answer(b'{"value": 1}')
        self.send_response(200)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.wfile.write(b'e\r\n{"value": "2S"\r\n')
        sent = 0
        try:
            while True:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(CHUNK), CHUNK))
                sent += len(CHUNK)
        except OSError:
            print(f"the platform hung up after {sent >> 20} MiB", flush=True)

    def answer(self, data):
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


HTTPServer(("127.0.0.1", 7000), HugeBody).serve_forever()
