"""Confused deputy: instead of serving, puts a symlink to the host socket named in
target.txt at its socket path (the last argument, ``symlink_socket.py``) and waits for the
platform to follow it."""

import sys
import time
from pathlib import Path

from symlink_socket import plant

target = (Path(__file__).parent / "target.txt").read_text().strip()
plant(target, sys.argv[-1])
print(f"planted a symlink to {target}", flush=True)
time.sleep(60)
