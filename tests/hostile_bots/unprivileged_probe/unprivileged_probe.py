"""Report what an unprivileged sandbox lets it do, then serve one greeting.

Tries a nested user namespace and reads its capabilities; prints JSON, then listens on the
address (last argument) like unix_echo.py.
"""

import ctypes
import errno
import json
import socket
import sys

libc = ctypes.CDLL(None, use_errno=True)
report = {"unshare": "ok"}
if libc.unshare(0x10000000) != 0:  # CLONE_NEWUSER
    report["unshare"] = errno.errorcode.get(ctypes.get_errno(), "?")
with open("/proc/self/status") as f:
    status = dict(line.split(":", 1) for line in f)
report["caps"] = sorted({status[k].strip() for k in ("CapPrm", "CapEff", "CapAmb")})
print(json.dumps(report), flush=True)
with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
    server.bind(sys.argv[-1][len("unix:") :])
    server.listen(1)
    conn, _ = server.accept()
    with conn:
        conn.sendall(b"hello from the sandbox")
