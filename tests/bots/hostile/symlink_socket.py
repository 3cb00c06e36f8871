"""Confused deputy: put a symlink to a host socket (argv[1]) where the platform expects the
bot's own socket (the last argument, "unix:/path"), then wait to be connected through it."""

import os
import sys
import time

os.symlink(sys.argv[1], sys.argv[-1][len("unix:") :])
print("symlink planted", flush=True)
time.sleep(30)
