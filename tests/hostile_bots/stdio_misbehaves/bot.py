"""A stdio-json bot, well behaved or not as ``argv[1]`` says:

plays-well     answers every request (the lowest legal card, call 1)
bad-lines      answers its first three card requests with lines that are no BotMessage
huge-line      answers its first card request with one line past the 64 KiB limit
closes-stdout  closes its stdout at its first card request (and keeps reading)
"""

import json
import os
import sys

MODE = sys.argv[1] if len(sys.argv) > 1 else "plays-well"
BAD = ['{"decision": {"id": ', "[1, 2, 3]", '{"decision": {"id": "x", "card": 5}}']


def send(obj) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def main() -> None:
    cards_asked = 0
    for line in sys.stdin:
        msg = json.loads(line)
        if "hello" in msg:
            send({"hello": {"protocol": msg["hello"]["protocol"], "name": "misbehaves"}})
        elif "decision" in msg:
            req = msg["decision"]
            if req["kind"] == "CALL":
                send({"decision": {"id": req["id"], "call": max(1, req["min_call"])}})
                continue
            cards_asked += 1
            if MODE == "bad-lines" and cards_asked <= len(BAD):
                sys.stdout.write(BAD[cards_asked - 1] + "\n")
                sys.stdout.flush()
            elif MODE == "huge-line" and cards_asked == 1:
                send({"decision": {"id": req["id"], "card": "x" * 70000}})
            elif MODE == "closes-stdout":
                if cards_asked == 1:
                    os.close(1)
                    print("stdout closed", file=sys.stderr, flush=True)
            else:
                send({"decision": {"id": req["id"], "card": req["legal_cards"][0]}})
        print(f"read {sorted(msg)}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
