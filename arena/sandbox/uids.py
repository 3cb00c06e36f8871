"""Host uids for bots when the platform runs as root: leases, and files the bot must reach."""

from __future__ import annotations

import fcntl
import logging
import os
import shutil
import stat
from pathlib import Path

from .cgroups import sweep_groups
from .copies import sweep_copies
from .policy import SandboxError, SandboxPolicy
from .procfs import _kill_until_gone, _pids_of_uid
from .view import sweep_views

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
        _owned_dir(lock_dir, 0o700)
        for uid in range(policy.uid_base, policy.uid_base + policy.uid_count):
            fd = _try_lock(lock_dir, uid)
            if fd is None:
                continue
            if _swept(fd, uid, policy):
                os.pwrite(fd, f"in use by pid {os.getpid()}".encode().ljust(31) + b"\n", 0)
                return cls(uid, fd)
            os.close(fd)
        raise SandboxError(f"all {policy.uid_count} sandbox uids from {policy.uid_base} are in use")

    def release(self, *, clean: bool) -> None:
        """Give the uid back; ``clean``: no process of it is left (next user skips the sweep)."""
        if self._fd is not None:
            if clean:
                os.pwrite(self._fd, _CLEAN, 0)
            os.close(self._fd)
            self._fd = None


def _try_lock(lock_dir: Path, uid: int) -> int | None:
    """The open, locked lock file of ``uid``, or None when a live platform process holds it."""
    flags = os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW
    fd = os.open(lock_dir / f"{uid}.lock", flags, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


def _swept(fd: int, uid: int, policy: SandboxPolicy) -> bool:
    """Whether no process and no file of an unheld uid is left. Unless its last holder
    released it cleanly (a platform process crashed), its leftovers are removed first."""
    if os.pread(fd, len(_CLEAN), 0) == _CLEAN:
        return True
    if not (sweep_groups(policy, uid) and _kill_until_gone(lambda: _pids_of_uid(uid))):
        logger.error("sandbox uid %d has unkillable leftover processes; skipping it", uid)
        return False
    shutil.rmtree(policy.private_tmp_root / str(uid), ignore_errors=True)
    return True


def sweep_leftovers(policy: SandboxPolicy) -> int:
    """Kill what crashed platform processes left running under uids nobody holds now (a
    platform SIGKILLed while bwrap was starting, or any rlimits-mode bot), whatever is in
    their cgroups, the groups themselves and their rlimits-mode private tmp dirs. Returns
    how many uids were cleaned; call it when a platform process starts. The bot-file copies
    of dead platform processes go too (as any user)."""
    sweep_copies(policy)
    sweep_views(policy)
    lock_dir = policy.uid_lock_dir
    if os.geteuid() != 0 or not lock_dir.is_dir():
        return 0
    cleaned = 0
    for lock in sorted(lock_dir.glob("*.lock")):
        if not lock.stem.isdigit():
            continue
        uid = int(lock.stem)
        fd = _try_lock(lock_dir, uid)
        if fd is None:
            continue
        try:
            if os.pread(fd, len(_CLEAN), 0) != _CLEAN and _swept(fd, uid, policy):
                os.pwrite(fd, _CLEAN, 0)
                cleaned += 1
        finally:
            os.close(fd)
    return cleaned


def _owned_dir(path: Path, mode: int) -> None:
    """Make sure ``path`` is a directory of ours that others can do no more than ``mode``."""
    path.mkdir(mode=mode, parents=True, exist_ok=True)
    st = os.lstat(path)
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid():
        raise SandboxError(f"{path} must be a directory owned by uid {os.geteuid()}")
    if stat.S_IMODE(st.st_mode) != mode:
        os.chmod(path, mode)


def _private_tmp_path(policy: SandboxPolicy, uid: int) -> Path:
    """Where the bot under ``uid`` gets its private tmp dir in rlimits mode (root only): in
    a root-owned folder others may only traverse."""
    _owned_dir(policy.private_tmp_root, 0o711)
    return policy.private_tmp_root / str(uid)


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
