"""Escape the tmpfs cap: make a user and mount namespace of its own, mount a 1 GiB tmpfs
there and fill it. Prints JSON {"unshare": "ok" or errno name, "written": bytes}."""

import ctypes
import errno
import json
import os

CLONE_NEWUSER, CLONE_NEWNS = 0x10000000, 0x00020000
libc = ctypes.CDLL(None, use_errno=True)
result = {"unshare": "ok", "written": 0}
uid, gid = os.getuid(), os.getgid()
if libc.unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0:
    result["unshare"] = errno.errorcode.get(ctypes.get_errno(), "?")
else:
    for name, text in (("setgroups", "deny"), ("uid_map", f"0 {uid} 1"), ("gid_map", f"0 {gid} 1")):
        with open(f"/proc/self/{name}", "w") as f:
            f.write(text)
    os.makedirs("/tmp/big", exist_ok=True)
    if libc.mount(b"tmpfs", b"/tmp/big", b"tmpfs", 0, b"size=1g") != 0:
        result["mount"] = errno.errorcode.get(ctypes.get_errno(), "?")
    else:
        block = b"B" * (1024 * 1024)
        try:
            with open("/tmp/big/fill", "wb", buffering=0) as f:
                for _ in range(1024):
                    result["written"] += f.write(block)
        except OSError as exc:
            result["error"] = errno.errorcode.get(exc.errno or 0, str(exc))
print(json.dumps(result), flush=True)
