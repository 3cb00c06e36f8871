"""Plays legally, but at its first request removes the relay's socket from /tmp and serves
one of its own there that answers everything with a redirect and an illegal card, logging
each connection it gets. The platform keeps talking to the socket it checked at start."""

import glob
import json
import os
import socket
import sys
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

from arena.game import BHOOS, legal_plays
from arena.players.bhoos.wire import card_in, card_out

POISON = (
    b'HTTP/1.1 302 Found\r\nLocation: http://10.0.0.1/\r\nContent-Length: 15\r\n\r\n{"value": "2C"}'
)


def impostor(path):
    os.unlink(path)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(8)
    print(f"replaced the relay's socket {path}", file=sys.stderr, flush=True)
    while True:
        conn, _ = server.accept()
        print("the impostor got a connection", file=sys.stderr, flush=True)
        conn.sendall(POISON)
        conn.close()


class ReplacesRelay(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    replaced = False

    def do_GET(self):
        self.answer({"value": "hello"})

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if not ReplacesRelay.replaced:
            ReplacesRelay.replaced = True
            [path] = glob.glob("/tmp/*.sock")
            threading.Thread(target=impostor, args=(path,), daemon=True).start()
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


HTTPServer(("127.0.0.1", 7000), ReplacesRelay).serve_forever()
