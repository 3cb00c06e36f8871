"""What this machine must provide to run untrusted bots, and getting it from the system's
package manager when that is allowed.

The sandbox needs bubblewrap and util-linux's ``prlimit``/``setpriv``; the JavaScript
sample bot needs node and npm. ``arena setup`` and ``arena demo`` use this, so that the
README's first command works on a fresh Debian/Ubuntu machine, and says in one line what to
install where it cannot do it itself.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass

# command -> Debian/Ubuntu package that provides it
REQUIRED = {"bwrap": "bubblewrap", "prlimit": "util-linux", "setpriv": "util-linux"}
OPTIONAL = {"node": "nodejs", "npm": "npm"}  # only for the JavaScript sample bot
_APT_ENV = {"DEBIAN_FRONTEND": "noninteractive"}

Which = Callable[[str], str | None]
Runner = Callable[[Sequence[str]], int]


@dataclass(frozen=True)
class Plan:
    """Packages missing for the sandbox (required) and for the JS sample (optional), and the
    command prefix that may install them (empty: none may)."""

    required: tuple[str, ...]
    optional: tuple[str, ...]
    installer: tuple[str, ...]

    @property
    def complete(self) -> bool:
        return not self.required and not self.optional

    def hint(self) -> str:
        """One line telling the operator what to install themselves."""
        packages = " ".join(dict.fromkeys(self.required + self.optional))
        return f"install the missing system packages: sudo apt-get install {packages}"


def plan(which: Which = shutil.which, euid: int | None = None) -> Plan:
    """What is missing here, and whether apt-get may be run (as root, or by sudo -n)."""
    euid = os.geteuid() if euid is None else euid
    required = _missing(REQUIRED, which)
    optional = tuple(p for p in _missing(OPTIONAL, which) if p not in required)
    installer: tuple[str, ...] = ()
    if which("apt-get"):
        if euid == 0:
            installer = ("apt-get",)
        elif which("sudo") and _quiet(["sudo", "-n", "true"]) == 0:
            installer = ("sudo", "-n", "apt-get")
    return Plan(required, optional, installer)


def install(packages: Sequence[str], installer: Sequence[str], run: Runner | None = None) -> bool:
    """``apt-get install`` the packages, refreshing the package lists once if that fails."""
    run = run or _quiet
    command = [*installer, "install", "-y", "-q", *packages]
    if run(command) == 0:
        return True
    return run([*installer, "update", "-q"]) == 0 and run(command) == 0


def _missing(commands: dict[str, str], which: Which) -> tuple[str, ...]:
    return tuple(dict.fromkeys(pkg for cmd, pkg in commands.items() if which(cmd) is None))


def _quiet(command: Sequence[str]) -> int:
    env = {**os.environ, **_APT_ENV}
    try:
        done = subprocess.run(command, capture_output=True, env=env, check=False, timeout=900)
    except (OSError, subprocess.TimeoutExpired):
        return 1
    return done.returncode
