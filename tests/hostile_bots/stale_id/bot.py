"""A raw callbreak.v1 servicer (no SDK) that answers every decision with a legal move but
the wrong id: the request's id + 1000."""

from arena.proto import bot_pb2 as pb
from arena.proto import bot_pb2_grpc as pb_grpc
from arena.sdk.server import serve_servicer

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
    serve_servicer(StaleId)


if __name__ == "__main__":
    main()
