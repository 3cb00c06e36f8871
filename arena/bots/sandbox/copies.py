"""A private copy of the bot's files for each launch.

The page cache is kept per file (per inode), for every process on the host: a bot that
could read and clear the cache state of its own package's pages would leave one bit per
page for its next process, i.e. for the next rotation of the same deals. Each launch
therefore serves the bot a fresh copy: new inodes whose pages are all cached from the start
(the copy was just written) and disappear with the copy when the bot stops."""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import stat
import tempfile
from pathlib import Path

from .policy import SandboxError, SandboxPolicy

logger = logging.getLogger(__package__)


_PREFIX = "arena-bot-files-"


def make_copy(source: Path, policy: SandboxPolicy) -> Path:
    """Copy the bot directory ``source`` into a fresh directory of ``policy.copy_dir``,
    named after this process (so a sweep can tell a dead platform's leftovers); modes are
    kept, owners are ours. In a sticky ``/tmp`` no other user can rename or remove it.

    Only directories, regular files and symlinks (as links, never followed) are copied;
    sockets, fifos and devices are left out."""
    target = Path(tempfile.mkdtemp(prefix=f"{_PREFIX}{os.getpid()}-", dir=policy.copy_dir))
    try:
        _copy_tree(source, target)
    except OSError as exc:
        shutil.rmtree(target, ignore_errors=True)
        raise SandboxError(f"cannot copy the bot's files from {source}: {exc}") from exc
    return target


def _copy_tree(source: Path, target: Path) -> None:
    os.chmod(target, stat.S_IMODE(os.stat(source).st_mode))
    with os.scandir(source) as entries:
        for entry in entries:
            dest = target / entry.name
            if entry.is_symlink():
                os.symlink(os.readlink(entry.path), dest)
            elif entry.is_dir(follow_symlinks=False):
                dest.mkdir()
                _copy_tree(Path(entry.path), dest)
            elif entry.is_file(follow_symlinks=False):
                _copy_file(entry.path, dest)
            else:
                logger.debug("not copied into the sandbox (not a regular file): %s", entry.path)


def _copy_file(source: str, dest: Path) -> None:
    shutil.copyfile(source, dest, follow_symlinks=False)  # in the kernel (sendfile)
    shutil.copymode(source, dest, follow_symlinks=False)


def remove_copy(path: Path | None) -> None:
    if path is not None:
        shutil.rmtree(path, ignore_errors=True)


def sweep_copies(policy: SandboxPolicy) -> int:
    """Remove our copies of platform processes that are gone (killed before their bots'
    stop); returns how many."""
    removed = 0
    for path in Path(policy.copy_dir).glob(f"{_PREFIX}*-*"):
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
