"""Write one huge file in $TMPDIR, 1 MiB at a time.

argv: MAX_MIB. Prints JSON {"written": bytes, "error": errno name or null}.
"""

import errno
import json
import os
import sys

path = os.path.join(os.environ.get("TMPDIR", "/tmp"), "huge.bin")
written = 0
error = None
block = b"F" * (1024 * 1024)
try:
    with open(path, "wb", buffering=0) as f:
        for _ in range(int(sys.argv[1])):
            written += f.write(block)
except OSError as exc:
    error = errno.errorcode.get(exc.errno or 0, str(exc))
    written = os.path.getsize(path)
print(json.dumps({"written": written, "error": error}))
