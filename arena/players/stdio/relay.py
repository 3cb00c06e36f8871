"""Runs inside a stdio-json bot's sandbox, as the bot's uid: serves the platform's Unix
socket (``$CALLBREAK_ADDRESS``), starts the bot's command with pipes for stdin and stdout
(its stderr is the sandbox's log) and copies bytes both ways: the socket into the bot's
stdin, the bot's stdout into the socket.

It is part of the bot, not of the platform: the bot can kill or replace it and gains nothing,
because the platform trusts nothing that comes out of the socket (``player.py`` frames and
caps the lines). It exits with the bot's exit status. Standard library only: it runs with
``python -I -S`` before anything of the bot.
"""

import contextlib
import os
import socket
import subprocess
import sys
import threading


def main() -> int:
    path = os.environ.pop("CALLBREAK_ADDRESS").removeprefix("unix:")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(1)
    try:
        bot = subprocess.Popen(
            sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0
        )
    except OSError as exc:
        built = " (is it built? `arena bot build` builds it as the server does)"
        print(f"cannot start the bot's command {sys.argv[1]}: {exc.strerror}{built}", flush=True)
        return 127
    threading.Thread(target=_serve, args=(listener, bot), daemon=True).start()
    status = bot.wait()
    return status if status >= 0 else 128 - status


def _serve(listener: socket.socket, bot: subprocess.Popen) -> None:
    """The one connection of the game (every game starts a fresh sandbox)."""
    conn, _ = listener.accept()
    listener.close()
    threading.Thread(target=_to_bot, args=(conn, bot.stdin), daemon=True).start()
    with contextlib.suppress(OSError):
        assert bot.stdout is not None
        while data := os.read(bot.stdout.fileno(), 65536):
            conn.sendall(data)
    with contextlib.suppress(OSError):
        conn.shutdown(socket.SHUT_WR)


def _to_bot(conn: socket.socket, stdin) -> None:
    """Copy until the platform ends its side, then close the bot's stdin (its end of input)."""
    with contextlib.suppress(OSError):
        while data := conn.recv(65536):
            stdin.write(data)
    with contextlib.suppress(OSError):
        stdin.close()


if __name__ == "__main__":
    sys.exit(main())
