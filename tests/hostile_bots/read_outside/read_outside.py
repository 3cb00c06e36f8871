"""Try to read files outside the bot's own directory.

Run alone (the sandbox tests), argv: PATH...; prints one JSON object: path ->
"read:<first bytes>" (a directory: "read:" and its names) or the errno name. The bot beside
it (bot.py) tries in every decision.
"""

import errno
import json
import os
import sys


def read(path: str, limit: int, separator: str) -> str:
    """A directory's sorted names joined by ``separator``, or a file's first ``limit`` bytes;
    raises OSError when it may not."""
    if os.path.isdir(path):
        return separator.join(sorted(os.listdir(path)))
    with open(path, "rb") as f:
        return f.read(limit).decode(errors="replace")


def errno_name(exc: OSError) -> str:
    return errno.errorcode.get(exc.errno or 0, str(exc))


if __name__ == "__main__":
    result = {}
    for path in sys.argv[1:]:
        try:
            result[path] = "read:" + read(path, 64, ",")
        except OSError as exc:
            result[path] = errno_name(exc)
    print(json.dumps(result))
