"""A raw callbreak.v1 servicer (no SDK) that answers every decision with a legal move but
the wrong id: the request's id + 1000."""

import os
import signal
import sys
import threading
from concurrent import futures

import grpc

from arena.proto import bot_pb2 as pb
from arena.proto import bot_pb2_grpc as pb_grpc

OFFSET = 1000


class StaleId(pb_grpc.BotServicer):
    def __init__(self, done):
        self.done = done

    def Play(self, request_iterator, context):
        try:
            for msg in request_iterator:
                kind = msg.WhichOneof("kind")
                if kind == "hello":
                    hello = pb.HelloReply(protocol="callbreak.v1", name="stale-id", version="1")
                    yield pb.BotMessage(hello=hello)
                elif kind == "decision":
                    req = msg.decision
                    reply = pb.DecisionReply(id=req.id + OFFSET)
                    if req.kind == pb.CALL:
                        reply.call = req.min_call
                    else:
                        reply.card = req.legal_cards[0]
                    yield pb.BotMessage(decision=reply)
        finally:
            self.done.set()


def main():
    address = sys.argv[-1] if len(sys.argv) > 1 else os.environ["CALLBREAK_ADDRESS"]
    done = threading.Event()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    pb_grpc.add_BotServicer_to_server(StaleId(done), server)
    server.add_insecure_port(address)
    server.start()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    done.wait()
    server.stop(grace=0.5).wait()


if __name__ == "__main__":
    main()
