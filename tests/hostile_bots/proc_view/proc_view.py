"""Prints, as one JSON object, what the sandbox shows under /proc and /sys: each file outside
the pid directories as "content", "empty" or the errno of reading it (an empty directory
as "<dir>/": "empty"), the names in /proc/self, whether /sys exists, what statfs(2) of
each mount point in /proc/self/mountinfo gives, and how many pids /proc lists.
tests/bots/test_sandbox_proc_view.py compares it with tests/bots/sandbox_proc_view.txt."""

import errno
import json
import os


def state(path):
    try:
        with open(path, "rb") as f:
            return "content" if f.read(1) else "empty"
    except OSError as exc:
        return errno.errorcode.get(exc.errno, str(exc.errno))


seen = {}
own = {int(p) for p in os.listdir("/proc") if p.isdigit()}
for name in sorted(os.listdir("/proc")):
    path = f"/proc/{name}"
    if name.isdigit():
        continue
    if os.path.islink(path):
        seen[path] = "link"
        continue
    if not os.path.isdir(path):
        seen[path] = state(path)
        continue
    for root, dirs, files in os.walk(path):
        for f in files:
            seen[os.path.join(root, f)] = state(os.path.join(root, f))
        if not dirs and not files:
            seen[root + "/"] = "empty"
for name in sorted(os.listdir("/proc/self")):
    seen[f"/proc/self/{name}"] = "per-process"
seen["/sys"] = "present" if os.path.exists("/sys") else "absent"
with open("/proc/self/mountinfo") as f:
    points = [line.split()[4] for line in f]
for point in points:
    try:
        os.statvfs(point)
        seen[f"statfs {point}"] = "ok"
    except OSError as exc:
        seen[f"statfs {point}"] = errno.errorcode[exc.errno]
seen["pids"] = len(own)
print(json.dumps(seen))
