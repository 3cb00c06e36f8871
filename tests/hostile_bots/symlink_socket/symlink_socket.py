"""Confused deputy: put a symlink to a host socket where the platform expects the bot's own
socket (the last argument, "unix:/path"), then wait to be connected through it.

Run alone (the sandbox tests), argv[1] is the host socket. The bot beside it (bot.py) reads
it from target.txt.
"""

import os
import sys
import time


def plant(target: str, address: str) -> None:
    os.symlink(target, address.removeprefix("unix:"))


if __name__ == "__main__":
    plant(sys.argv[1], sys.argv[-1])
    print("symlink planted", flush=True)
    time.sleep(30)
