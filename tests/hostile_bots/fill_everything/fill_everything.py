"""Write wherever it can: one huge file and up to MAX_FILES empty files in $TMPDIR (and
/dev/shm with "shm"), and files outside them. Prints JSON, then "lingering" and stays (with
a child in a session of its own) until killed.

argv: MARKER (so the test finds its processes) MAX_FILES [shm].
JSON: place -> {"count" or "bytes", "error"}, or errno name for the files outside.
"""

import errno
import json
import os
import sys
import time


def name(exc):
    return errno.errorcode.get(exc.errno or 0, str(exc))


def big_file(path):
    written, block = 0, b"F" * (1024 * 1024)
    try:
        with open(path, "wb", buffering=0) as f:
            for _ in range(1024):
                written += f.write(block)
    except OSError as exc:
        return {"bytes": os.path.getsize(path), "error": name(exc)}
    return {"bytes": written, "error": None}


def empty_files(folder, most):
    os.makedirs(folder, exist_ok=True)
    count = 0
    try:
        for count in range(most):
            open(os.path.join(folder, str(count)), "w").close()
    except OSError as exc:
        return {"count": count, "error": name(exc)}
    return {"count": most, "error": None}


def outside(path):
    try:
        with open(path, "w") as f:
            f.write("x")
    except OSError as exc:
        return name(exc)
    return "ok"


tmp = os.environ["TMPDIR"]
report = {"big": big_file(os.path.join(tmp, "big.bin"))}
os.unlink(os.path.join(tmp, "big.bin"))
most = int(sys.argv[2])
report["tmp_files"] = empty_files(os.path.join(tmp, "many"), most)
if sys.argv[3:] == ["shm"]:
    report["shm_files"] = empty_files("/dev/shm/many", most)
for path in ("/escape.txt", "/run/arena/escape.txt", "/bot/escape.txt", "/var/tmp/x.txt"):
    report[path] = outside(path)
print(json.dumps(report), flush=True)
if os.fork() == 0:
    os.setsid()
while True:
    print("lingering", sys.argv[1], flush=True)
    time.sleep(0.2)
