"""Try to outlive the sandbox: a setsid()'d grandchild (detached from the process group,
reparented away from us) and a main process, both ignoring SIGTERM.

argv: MARKER (so the test can find the processes). Prints "ready" once both exist.
"""

import os
import signal
import sys
import time

LINGER = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(3600)"

signal.signal(signal.SIGTERM, signal.SIG_IGN)
read_end, write_end = os.pipe()
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.close(read_end)
        os.write(write_end, b"up")
        os.execv(sys.executable, [sys.executable, "-c", LINGER, sys.argv[1]])
    os._exit(0)
os.close(write_end)
os.read(read_end, 2)
print("ready", flush=True)
while True:
    time.sleep(1)
