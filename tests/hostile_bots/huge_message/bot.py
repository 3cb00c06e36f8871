"""A raw callbreak.v1 servicer that answers Hello, then sends unasked-for DecisionReply
messages of 4 MiB each (a card string of 4 MiB), up to 64 of them (256 MiB), as fast as
gRPC lets it. A platform that buffered them would grow by 4 MiB per message. It reports
on stderr:

    SENDING 4 MiB messages
    SENT <n> messages of 4 MiB
"""

import sys
import threading

from arena.proto import bot_pb2 as pb
from arena.proto import bot_pb2_grpc as pb_grpc
from arena.sdk.server import serve_servicer

HUGE = "H" * (4 * 1024 * 1024)


def say(text):
    print(text, file=sys.stderr, flush=True)


class Huge(pb_grpc.BotServicer):
    def __init__(self, done):
        self.done = done

    def Play(self, request_iterator, context):
        next(request_iterator)  # Hello
        threading.Thread(target=drain, args=(request_iterator,), daemon=True).start()
        yield pb.BotMessage(hello=pb.HelloReply(protocol="callbreak.v1", name="huge", version="1"))
        say("SENDING 4 MiB messages")
        sent = 0
        try:
            while context.is_active() and sent < 64:
                yield pb.BotMessage(decision=pb.DecisionReply(id=10**12 + sent, card=HUGE))
                sent += 1
        finally:
            say(f"SENT {sent} messages of 4 MiB")
            self.done.set()


def drain(request_iterator):
    try:
        for _ in request_iterator:
            pass
    except Exception:  # the stream went away
        pass


def main():
    serve_servicer(Huge)


if __name__ == "__main__":
    main()
