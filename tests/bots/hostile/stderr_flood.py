"""Write argv[1] MiB to stderr as fast as possible, then exit normally."""

import os
import sys

block = b"E" * 65536
for _ in range(int(sys.argv[1]) * 16):
    os.write(2, block)
sys.exit(0)
