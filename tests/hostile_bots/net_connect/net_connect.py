"""Try to reach the outside: a TCP port on the host's loopback, a public IP, an abstract socket.

Run alone (the sandbox tests), argv: PORT ABSTRACT_NAME; prints one JSON object: target ->
"connected" or the errno name. The bot beside it (bot.py) tries in every decision.
"""

import errno
import json
import socket
import sys


def attempt(family: int, address: object, timeout: float) -> str:
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        try:
            s.connect(address)
        except TimeoutError:
            return "timeout"
        except OSError as exc:
            return errno.errorcode.get(exc.errno or 0, str(exc))
        return "connected"


if __name__ == "__main__":
    port, abstract = int(sys.argv[1]), sys.argv[2]
    print(
        json.dumps(
            {
                "host_loopback": attempt(socket.AF_INET, ("127.0.0.1", port), 1.0),
                "public_dns": attempt(socket.AF_INET, ("1.1.1.1", 53), 1.0),
                "abstract_unix": attempt(socket.AF_UNIX, "\0" + abstract, 1.0),
            }
        )
    )
