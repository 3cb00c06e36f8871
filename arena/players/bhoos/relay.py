"""Runs inside a Bhoos bot's sandbox, as the bot's uid: starts the bot's command and bridges
connections on the platform's Unix socket (``$CALLBREAK_ADDRESS``) to the bot's
``127.0.0.1:7000`` in the sandbox's own network namespace.

It is part of the bot, not of the platform: the bot can kill it (the sandbox then ends: a
crash), replace it or serve the socket itself, and gains nothing by it, because the platform
trusts nothing that comes out of the socket (``client.py``) and the sandbox has no network
but its loopback. It exits with the bot's exit status. Standard library only: it runs with
``python -I -S`` before anything of the bot.
"""

import contextlib
import os
import socket
import subprocess
import sys
import threading

BOT_PORT = 7000
# A busy bot's full listen backlog delays the connection rather than refusing it: wait, and
# let the platform's deadline decide (a timeout, not a dropped connection).
_CONNECT_TIMEOUT_S = 60.0


def main() -> int:
    path = os.environ.pop("CALLBREAK_ADDRESS").removeprefix("unix:")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(16)
    bot = subprocess.Popen(sys.argv[1:])
    threading.Thread(target=_serve, args=(listener,), daemon=True).start()
    status = bot.wait()
    return status if status >= 0 else 128 - status


def _serve(listener: socket.socket) -> None:
    while True:
        conn, _ = listener.accept()
        threading.Thread(target=_bridge, args=(conn,), daemon=True).start()


def _bridge(conn: socket.socket) -> None:
    """One platform connection to one new connection to the bot (closed at once while the
    bot is not listening yet: the platform polls ``GET /hi``)."""
    try:
        upstream = socket.create_connection(("127.0.0.1", BOT_PORT), _CONNECT_TIMEOUT_S)
    except OSError:
        conn.close()
        return
    upstream.settimeout(None)
    back = threading.Thread(target=_pump, args=(upstream, conn), daemon=True)
    back.start()
    _pump(conn, upstream)
    back.join()
    conn.close()
    upstream.close()


def _pump(source: socket.socket, sink: socket.socket) -> None:
    """Copy until ``source`` ends, then end ``sink``'s writing side."""
    with contextlib.suppress(OSError):
        while data := source.recv(65536):
            sink.sendall(data)
    with contextlib.suppress(OSError):
        sink.shutdown(socket.SHUT_WR)


if __name__ == "__main__":
    sys.exit(main())
