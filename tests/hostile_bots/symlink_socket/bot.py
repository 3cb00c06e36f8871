"""Confused deputy: instead of serving, puts a symlink to the host socket named in
target.txt at its socket path (the last argument) and waits for the platform to follow it."""

import os
import sys
import time
from pathlib import Path

target = (Path(__file__).parent / "target.txt").read_text().strip()
os.symlink(target, sys.argv[-1].removeprefix("unix:"))
print(f"planted a symlink to {target}", flush=True)
time.sleep(60)
