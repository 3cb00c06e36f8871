"""A raw callbreak.v1 servicer that answers Hello, then streams unsolicited DecisionReply
messages of 60 KiB each (just under the platform's 64 KiB message cap) as fast as gRPC lets
it, never answering a decision. A platform that buffered them would grow by 60 KiB per
message; it reports on stderr how many it got out:

    FLOODED <n> messages (<MiB> MiB)
"""

import sys
import threading
import time

from arena.proto import bot_pb2 as pb
from arena.proto import bot_pb2_grpc as pb_grpc
from arena.sdk.server import serve_servicer

PAYLOAD = "F" * (60 * 1024)


def say(text):
    print(text, file=sys.stderr, flush=True)


class Flood(pb_grpc.BotServicer):
    def __init__(self, done):
        self.done = done

    def Play(self, request_iterator, context):
        first = next(request_iterator)
        say(f"HELLO {first.WhichOneof('kind')}")
        threading.Thread(target=self.drain, args=(request_iterator,), daemon=True).start()
        yield pb.BotMessage(hello=pb.HelloReply(protocol="callbreak.v1", name="flood", version="1"))
        sent = 0
        last = time.monotonic()
        try:
            while context.is_active():
                yield pb.BotMessage(decision=pb.DecisionReply(id=10**12 + sent, card=PAYLOAD))
                sent += 1
                if time.monotonic() - last > 0.5 or sent in (1, 10, 100):
                    last = time.monotonic()
                    say(f"FLOODED {sent} messages ({sent * len(PAYLOAD) / 2**20:.1f} MiB)")
        finally:
            say(f"FLOODED {sent} messages ({sent * len(PAYLOAD) / 2**20:.1f} MiB) in all")
            self.done.set()

    def drain(self, request_iterator):
        try:
            for _ in request_iterator:
                pass
        except Exception:  # the stream went away
            pass


def main():
    serve_servicer(Flood, threads=4)


if __name__ == "__main__":
    main()
