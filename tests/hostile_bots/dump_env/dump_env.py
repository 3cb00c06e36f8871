"""Print the environment, and every other process environment it can read, as JSON."""

import json
import os

others = {}
for name in os.listdir("/proc"):
    if name.isdigit() and int(name) != os.getpid():
        try:
            with open(f"/proc/{name}/environ", "rb") as f:
                others[name] = f.read().decode(errors="replace")
        except OSError:
            pass
print(json.dumps({"env": dict(os.environ), "uid": os.getuid(), "others": others}))
