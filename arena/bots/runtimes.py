"""Which runtimes this machine can run a bot with, and what a manifest's ``runtime`` asks.

``python``, ``python3`` and ``python3.X`` name a Python: the platform's own (which ``python``
and ``python3`` commands run) or another ``python3.X`` on the PATH a bot gets (its
interpreter's folder, /usr/local/bin, /usr/bin, /bin: what the sandbox shows of the host).
``node`` and ``nodeN`` name Node.js of major version N or newer. The compiled languages are
named by their entry in ``arena.toolchains`` (``c``, ``cpp``, ``go``, ``java``, ``rust``) and
must be installed here. Anything else is refused with the list of what is here, before a
failed build or start.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import sys

from arena.toolchains import TOOLCHAINS, installed, toolchain_named

_RUNTIME = re.compile(r"^(python|node)(\d+(?:\.\d+)?)?$")


def _bot_path() -> str:
    """The PATH the sandbox gives a bot (see ``arena.sandbox.bwrap``)."""
    return os.pathsep.join([os.path.dirname(sys.executable), "/usr/local/bin", "/usr/bin", "/bin"])


@functools.cache
def available_runtimes() -> tuple[str, ...]:
    """The runtimes found here, newest Python first: e.g. ``("python3.11", "node20")``."""
    own = f"python{sys.version_info.major}.{sys.version_info.minor}"
    pythons = {own} | {
        f"python3.{m}" for m in range(6, 30) if shutil.which(f"python3.{m}", path=_bot_path())
    }
    found = sorted(pythons, key=lambda p: -int(p.rsplit(".", 1)[1]))
    if (major := _node_major()) is not None:
        found.append(f"node{major}")
    return (*found, *(name for name in installed() if name not in ("python", "node")))


def _node_major() -> int | None:
    node = shutil.which("node", path=_bot_path())
    if node is None:
        return None
    try:
        out = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    match = re.match(r"v(\d+)", out.stdout.strip())
    return int(match.group(1)) if match else None


def runtime_problem(runtime: str) -> str | None:
    """Why the manifest's ``runtime`` cannot run here (None: it can, or none is asked)."""
    if not runtime:
        return None
    here = available_runtimes()
    listed = ", ".join(here) or "none"
    match = _RUNTIME.match(runtime.strip().lower())
    if match is None:
        chain = toolchain_named(runtime)
        if chain is not None and chain.name == runtime.strip().lower():
            if chain.name in here:
                return None
            return f"runtime {runtime!r} is not installed here (available: {listed})"
        compiled = [c.name for c in TOOLCHAINS if c.name not in ("python", "node")]
        known = ", ".join(["python3.X", "nodeN", *compiled])
        return (
            f"runtime {runtime!r} is not one the platform knows (write one of {known}; "
            f"available here: {listed})"
        )
    family, version = match.groups()
    if family == "python":
        ok = version in (None, "3") or f"python{version}" in here
    else:
        majors = [int(r[4:]) for r in here if r.startswith("node")]
        ok = bool(majors) and (version is None or max(majors) >= int(float(version)))
    return None if ok else f"runtime {runtime!r} is not available here (available: {listed})"
