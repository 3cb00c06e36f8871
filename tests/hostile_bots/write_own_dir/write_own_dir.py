"""Try to change the bot's own code and directory, and to write where it is allowed.

Prints JSON: action -> "ok" or errno name.
"""

import errno
import json
import os


def attempt(action):
    try:
        action()
    except OSError as exc:
        return errno.errorcode.get(exc.errno or 0, str(exc))
    return "ok"


def write(path, mode="w"):
    def go():
        with open(path, mode) as f:
            f.write("tampered\n")

    return go


me = os.path.abspath(__file__)
print(
    json.dumps(
        {
            "create_in_cwd": attempt(write("new_file.txt")),
            "overwrite_own_code": attempt(write(me, "a")),
            "delete_own_code": attempt(lambda: os.unlink(me)),
            "mkdir_in_cwd": attempt(lambda: os.mkdir("newdir")),
            "write_root": attempt(write("/arena-escape.txt")),
            "write_usr": attempt(write("/usr/arena-escape.txt")),
            "write_tmp": attempt(write(os.path.join(os.environ["TMPDIR"], "probe.txt"))),
        }
    )
)
