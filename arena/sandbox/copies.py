"""A private copy of the bot's files for each launch.

The page cache is kept per file (per inode), for every process on the host: a bot that
could read and clear the cache state of its own package's pages would leave one bit per
page for its next process, i.e. for the next rotation of the same deals. Each launch
therefore serves the bot a fresh copy: new inodes whose pages are all cached from the start
(the copy was just written) and disappear with the copy when the bot stops."""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import shutil
import stat
import tempfile
from pathlib import Path

from .policy import SandboxError, SandboxPolicy

logger = logging.getLogger(__package__)


_PREFIX = "arena-bot-files-"
_SHM = Path("/dev/shm")  # a tmpfs on Linux: a copy costs no disk writes (40 ms, not 1.2 s,
# for the JavaScript sample bot's 1,174 files on the project's VM)


def copy_dirs(policy: SandboxPolicy) -> list[Path]:
    """Where copies go, in order of preference: ``policy.copy_dir`` when set, else the
    host's /dev/shm and then the temporary directory (for a /dev/shm that is full)."""
    if policy.copy_dir is not None:
        return [Path(policy.copy_dir)]
    found = [_SHM] if os.access(_SHM, os.W_OK | os.X_OK) else []
    return [*found, Path(tempfile.gettempdir())]


def make_copy(source: Path, policy: SandboxPolicy) -> Path:
    """Copy the bot directory ``source`` into a fresh directory named after this process
    (so a sweep can tell a dead platform's leftovers); modes are kept, owners are ours. In
    a sticky directory (/dev/shm, /tmp) no other user can rename or remove it.

    Only directories, regular files and symlinks (as links, never followed) are copied;
    sockets, fifos and devices are left out."""
    problems = []
    for where in copy_dirs(policy):
        try:
            target = Path(tempfile.mkdtemp(prefix=f"{_PREFIX}{os.getpid()}-", dir=where))
        except OSError as exc:
            problems.append(f"{where}: {exc.strerror}")
            continue
        try:
            _copy_tree(source, target)
            return target
        except OSError as exc:
            shutil.rmtree(target, ignore_errors=True)
            problems.append(f"{where}: {exc}")
            if exc.errno not in (errno.ENOSPC, errno.EDQUOT):
                break
    raise SandboxError(f"cannot copy the bot's files from {source}: {'; '.join(problems)}")


def _copy_tree(source: Path, target: Path) -> None:
    os.chmod(target, stat.S_IMODE(os.stat(source).st_mode))
    with os.scandir(source) as entries:
        for entry in entries:
            dest = os.path.join(target, entry.name)
            if entry.is_symlink():
                os.symlink(os.readlink(entry.path), dest)
            elif entry.is_dir(follow_symlinks=False):
                os.mkdir(dest)
                _copy_tree(Path(entry.path), Path(dest))
            elif entry.is_file(follow_symlinks=False):
                _copy_file(entry.path, dest)
            else:
                logger.debug("not copied into the sandbox (not a regular file): %s", entry.path)


def _copy_file(source: str, dest: str) -> None:
    """The bytes, in the kernel; the mode of the source (the umask does not apply)."""
    src = os.open(source, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        info = os.fstat(src)
        dst = os.open(dest, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        try:
            offset = 0
            while offset < info.st_size:
                sent = os.sendfile(dst, src, offset, info.st_size - offset)
                if sent == 0:
                    break  # the source shrank meanwhile
                offset += sent
            os.fchmod(dst, stat.S_IMODE(info.st_mode))
        finally:
            os.close(dst)
    finally:
        os.close(src)


def remove_copy(path: Path | None) -> None:
    if path is not None:
        shutil.rmtree(path, ignore_errors=True)


def sweep_copies(policy: SandboxPolicy) -> int:
    """Remove our copies of platform processes that are gone (killed before their bots'
    stop); returns how many."""
    removed = 0
    for path in (p for where in copy_dirs(policy) for p in where.glob(f"{_PREFIX}*-*")):
        pid = path.name.removeprefix(_PREFIX).split("-", 1)[0]
        with contextlib.suppress(OSError):
            mine = os.lstat(path).st_uid == os.geteuid()
            if mine and pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
                shutil.rmtree(path, ignore_errors=True)
                removed += 1
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
