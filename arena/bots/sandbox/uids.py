"""Host uids for bots when the platform runs as root: leases, and files the bot must reach."""

from __future__ import annotations

import fcntl
import logging
import os
import stat
from pathlib import Path

from .policy import SandboxError, SandboxPolicy
from .procfs import _kill_until_gone, _pids_of_uid

logger = logging.getLogger(__package__)  # the package's one logger, named as before the split

# Lock file content, fixed width so that it can be overwritten in place (no ftruncate).
_CLEAN = b"clean".ljust(31) + b"\n"


class _UidLease:
    """A host uid reserved for one running bot (flock on a per-uid lock file)."""

    def __init__(self, uid: int, fd: int) -> None:
        self.uid = uid
        self._fd: int | None = fd

    @classmethod
    def acquire(cls, policy: SandboxPolicy) -> _UidLease:
        lock_dir = policy.uid_lock_dir
        _private_dir(lock_dir)
        for uid in range(policy.uid_base, policy.uid_base + policy.uid_count):
            flags = os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW
            fd = os.open(lock_dir / f"{uid}.lock", flags, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            # Nobody holds this uid. Unless its last holder released it cleanly, processes
            # may still run under it (a platform process crashed): clear them out first.
            if os.pread(fd, len(_CLEAN), 0) == _CLEAN or _kill_until_gone(
                lambda uid=uid: _pids_of_uid(uid)
            ):
                os.pwrite(fd, f"in use by pid {os.getpid()}".encode().ljust(31) + b"\n", 0)
                return cls(uid, fd)
            os.close(fd)
            logger.error("sandbox uid %d has unkillable leftover processes; skipping it", uid)
        raise SandboxError(f"all {policy.uid_count} sandbox uids from {policy.uid_base} are in use")

    def release(self, *, clean: bool) -> None:
        """Give the uid back; ``clean``: no process of it is left (next user skips the sweep)."""
        if self._fd is not None:
            if clean:
                os.pwrite(self._fd, _CLEAN, 0)
            os.close(self._fd)
            self._fd = None


def _private_dir(path: Path) -> None:
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    st = os.lstat(path)
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid():
        raise SandboxError(f"{path} must be a directory owned by uid {os.geteuid()}")
    if st.st_mode & 0o077:
        os.chmod(path, 0o700)


def _check_reachable(path: Path, *, ancestors: bool) -> None:
    """As root the bot runs under another uid: it must be able to read ``path``."""
    chain = [path, *path.parents] if ancestors else [path]
    for p in chain:
        mode = os.stat(p).st_mode
        need = 0o005 if p == path else 0o001
        if mode & need != need:
            raise SandboxError(
                f"{p} is not accessible to the sandbox uid (mode {stat.filemode(mode)}); "
                "bot files must be world-readable (chmod -R o+rX)"
            )
