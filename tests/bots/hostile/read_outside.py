"""Try to read files outside the bot's own directory.

argv: PATH... Prints one JSON object: path -> "read:<first bytes>" or the errno name.
"""

import errno
import json
import os
import sys

result = {}
for path in sys.argv[1:]:
    try:
        if os.path.isdir(path):
            result[path] = "read:" + ",".join(sorted(os.listdir(path)))
        else:
            with open(path, "rb") as f:
                result[path] = "read:" + f.read(64).decode(errors="replace")
    except OSError as exc:
        result[path] = errno.errorcode.get(exc.errno or 0, str(exc))
print(json.dumps(result))
