"""Reaching a bot's socket without trusting its path: the bot owns the directory it is in,
so it could put a symlink to any host socket there and have the platform connect to it."""

from __future__ import annotations

import contextlib
import os
import signal
import stat
from pathlib import PurePosixPath

from .policy import UnsafeSocket
from .procfs import _children

_DIR_FLAGS = os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_KINDS = {
    stat.S_IFLNK: "a symlink",
    stat.S_IFREG: "a regular file",
    stat.S_IFDIR: "a directory",
    stat.S_IFIFO: "a fifo",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
}


def open_dir(path: str) -> int:
    """An O_PATH fd of a directory the platform made (kept, so that renaming it away and
    putting a symlink in its place changes nothing)."""
    return os.open(path, _DIR_FLAGS)


def open_namespace_dir(init: int, inside: PurePosixPath) -> int | None:
    """An O_PATH fd of ``inside`` as the sandbox sees it, or None while bwrap is still
    setting up (its init forks the bot only after its final chroot: until then
    ``/proc/<init>/root`` may still be the host's root)."""
    try:
        pidfd = os.pidfd_open(init)
    except OSError:
        return None
    try:
        if not _children(init):
            return None
        if os.readlink(f"/proc/{init}/ns/mnt") == os.readlink("/proc/self/ns/mnt"):
            return None
        fd = os.open(f"/proc/{init}/root/{inside.relative_to('/')}", _DIR_FLAGS)
        try:
            signal.pidfd_send_signal(pidfd, 0)  # the pid was not reused: fd is the bot's dir
        except OSError:
            os.close(fd)
            return None
        return fd
    except OSError:
        return None
    finally:
        os.close(pidfd)


def present(dir_fd: int, name: str) -> bool:
    """Whether anything (not followed) exists at ``name`` in the directory."""
    try:
        os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except OSError:
        return False
    return True


def open_socket(dir_fd: int, name: str, owner: int) -> int:
    """An O_PATH fd of the socket ``name`` after checking that it is a socket (not a link,
    never followed) owned by ``owner``; connect through ``/proc/self/fd/<fd>`` so that the
    checked inode is the one connected to. Raises :class:`UnsafeSocket`."""
    try:
        fd = os.open(name, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
    except OSError as exc:
        raise UnsafeSocket(f"cannot open the bot's socket {name}: {exc.strerror}") from None
    with contextlib.ExitStack() as on_error:
        on_error.callback(os.close, fd)
        st = os.fstat(fd)
        if not stat.S_ISSOCK(st.st_mode):
            kind = _KINDS.get(stat.S_IFMT(st.st_mode), "not a socket")
            raise UnsafeSocket(f"the bot's socket path {name} is {kind}, not a socket")
        if st.st_uid != owner:
            raise UnsafeSocket(
                f"the bot's socket {name} belongs to uid {st.st_uid}, not the bot's ({owner})"
            )
        on_error.pop_all()
    return fd
