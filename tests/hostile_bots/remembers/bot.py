"""A raw callbreak.v1 servicer that tries to carry what it saw from one game to the next.

In a duplicate set every game replays the same deals with the seats rotated, so a bot
that remembered game 1 would know the three hidden hands in games 2-4. This one stores a
record of every hand it holds and every card it sees (one JSON line each):

- in memory (``MEMORY``, which outlives a stream if the process does);
- in a file in every place it can write: /tmp, /dev/shm, $HOME, $TMPDIR, its working
  directory, the directory of its socket address and its parent, /var/tmp and /;
- in a keeper: a detached grandchild (new session, SIGTERM/SIGHUP ignored) that holds the
  records and serves them on the abstract unix socket ``@callbreak-hostile-memory``.

At the first decision of every stream (= game) it looks in all of them for records of
another stream (another Hello.match_id) and reports on stderr, its log:

    REMEMBERED game <g>: <n> records of earlier games via <channels>: ...
    NOTHING REMEMBERED game <g> (searched ...)

and at the first decision of every later deal of the same game, to show the channels work:

    IN-GAME RECALL game <g> deal <d> via <channels>

The process serves streams until SIGTERM, so a platform that kept it for several games
would be found out.
"""

import errno
import json
import os
import signal
import socket
import subprocess
import sys
import time

ABSTRACT = b"\0callbreak-hostile-memory"
FILE_NAME = "callbreak-memory.jsonl"


def say(text):
    print(text, file=sys.stderr, flush=True)


def why(exc):
    return errno.errorcode.get(exc.errno or 0, type(exc).__name__)


# --------------------------------------------------------------------------- keeper


def keeper():
    """Detach (double fork, new session), ignore the polite signals, hold the records."""
    if os.fork():
        os._exit(0)
    os.setsid()
    if os.fork():
        os._exit(0)
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(sig, signal.SIG_IGN)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        server.bind(ABSTRACT)
    except OSError as exc:
        say(f"keeper {os.getpid()}: cannot bind the abstract socket: {why(exc)}")
        os._exit(0)
    server.listen(16)
    say(f"keeper {os.getpid()} holding records on @callbreak-hostile-memory")
    records = []
    while True:
        conn, _ = server.accept()
        with conn:
            conn.settimeout(1.0)
            data = b""
            try:
                while chunk := conn.recv(65536):
                    data += chunk
                if data.startswith(b"PUT "):
                    records.append(data[4:])
                elif data.startswith(b"GET"):
                    conn.sendall(b"\n".join(records))
            except OSError:
                pass


def _talk(payload):
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.settimeout(0.5)
        conn.connect(ABSTRACT)
        conn.sendall(payload)
        conn.shutdown(socket.SHUT_WR)
        data = b""
        while chunk := conn.recv(65536):
            data += chunk
        return data


if __name__ == "__main__" and sys.argv[1:2] == ["--keeper"]:
    keeper()
    sys.exit(0)

# --------------------------------------------------------------------------- the bot


from arena.proto import bot_pb2 as pb  # noqa: E402
from arena.proto import bot_pb2_grpc as pb_grpc  # noqa: E402
from arena.sdk.server import serve_servicer  # noqa: E402

MEMORY = []  # every record of every stream this process served


def places(address):
    socket_dir = os.path.dirname(address.removeprefix("unix:"))
    found = [
        ("/tmp", "/tmp"),
        ("/dev/shm", "/dev/shm"),
        ("$HOME", os.environ.get("HOME", "")),
        ("$TMPDIR", os.environ.get("TMPDIR", "")),
        ("cwd", os.getcwd()),
        ("socket dir", socket_dir),
        ("socket dir parent", os.path.dirname(socket_dir)),
        ("/var/tmp", "/var/tmp"),
        ("/", "/"),
    ]
    return [(label, path) for label, path in found if path]


class Memory:
    def __init__(self, address):
        self.places = places(address)

    def store(self, record):
        """Store everywhere; returns how each place fared."""
        MEMORY.append(record)
        line = json.dumps(record).encode()
        outcome = []
        for label, path in self.places:
            try:
                with open(os.path.join(path, FILE_NAME), "ab") as f:
                    f.write(line + b"\n")
                outcome.append(f"{label} ok")
            except OSError as exc:
                outcome.append(f"{label} {why(exc)}")
        try:
            _talk(b"PUT " + line)
            outcome.append("keeper ok")
        except OSError as exc:
            outcome.append(f"keeper {why(exc)}")
        return ", ".join(outcome)

    def search(self):
        """Channel -> records found there; and the channels' failures."""
        found = {"memory": list(MEMORY)}
        failures = []
        for label, path in self.places:
            try:
                with open(os.path.join(path, FILE_NAME), "rb") as f:
                    found[label] = [json.loads(line) for line in f if line.strip()]
            except (OSError, ValueError) as exc:
                failures.append(f"{label} {why(exc)}")
        try:
            found["keeper"] = [json.loads(line) for line in _talk(b"GET").split(b"\n") if line]
        except (OSError, ValueError) as exc:
            failures.append(f"keeper {why(exc)}")
        return found, failures


def describe(record):
    return f"game {record['game']} deal {record['deal']} seat {record['seat']} {record['kind']}"


class Remembers(pb_grpc.BotServicer):
    def __init__(self, address):
        self.memory = Memory(address)

    def Play(self, request_iterator, context):
        match_id = None
        deal_key = None
        seat = 0
        seen = []
        for msg in request_iterator:
            kind = msg.WhichOneof("kind")
            if kind == "hello":
                match_id = msg.hello.match_id
                say(f"HELLO match_id={match_id} pid={os.getpid()}")
                hello = pb.HelloReply(protocol="callbreak.v1", name="remembers", version="1")
                yield pb.BotMessage(hello=hello)
            elif kind == "decision":
                req = msg.decision
                obs = req.observation
                if (obs.game, obs.deal) != deal_key:
                    deal_key, seat, seen = (obs.game, obs.deal), obs.seat, []
                    self.look(match_id, obs.game, obs.deal)
                    record = {
                        "match": match_id,
                        "game": obs.game,
                        "deal": obs.deal,
                        "seat": obs.seat,
                        "kind": "hand",
                        "cards": list(obs.hand),
                    }
                    outcome = self.memory.store(record)
                    say(f"WROTE game {obs.game} deal {obs.deal}: {outcome}")
                reply = pb.DecisionReply(id=req.id)
                if req.kind == pb.CALL:
                    reply.call = req.min_call
                else:
                    reply.card = req.legal_cards[0]
                yield pb.BotMessage(decision=reply)
            elif kind == "event":
                which = msg.event.WhichOneof("kind")
                if which == "trick_end":
                    seen.extend(msg.event.trick_end.trick.cards)
                elif which == "deal_end" and deal_key is not None:
                    game, deal = deal_key
                    record = {
                        "match": match_id,
                        "game": game,
                        "deal": deal,
                        "seat": seat,
                        "kind": "seen",
                        "cards": seen,
                    }
                    self.memory.store(record)

    def look(self, match_id, game, deal):
        found, failures = self.memory.search()
        if deal == 0:
            earlier = {
                channel: [r for r in records if r.get("match") != match_id]
                for channel, records in found.items()
            }
            earlier = {c: rs for c, rs in earlier.items() if rs}
            if earlier:
                records = {describe(r): r for rs in earlier.values() for r in rs}
                sample = "; ".join(
                    f"{text}: {' '.join(r['cards'])}" for text, r in list(records.items())[:8]
                )
                say(
                    f"REMEMBERED game {game}: {len(records)} records of earlier games"
                    f" via {','.join(earlier)}: {sample}"
                )
            else:
                searched = ", ".join([*found, *failures])
                say(f"NOTHING REMEMBERED game {game} (searched {searched})")
        else:
            recalled = [
                channel
                for channel, records in found.items()
                if any(r.get("match") == match_id and r.get("deal", deal) < deal for r in records)
            ]
            say(f"IN-GAME RECALL game {game} deal {deal} via {','.join(recalled)}")


def main():
    address = sys.argv[-1] if len(sys.argv) > 1 else os.environ["CALLBREAK_ADDRESS"]
    try:  # the keeper: a detached grandchild that should outlive this process
        subprocess.run([sys.executable, __file__, "--keeper"], timeout=5, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        say(f"could not start the keeper: {exc}")
    time.sleep(0.1)  # let it bind
    # Serve every stream until stopped (it never sets the event): a kept process remembers.
    serve_servicer(lambda _done: Remembers(address), address, threads=4)


if __name__ == "__main__":
    main()
