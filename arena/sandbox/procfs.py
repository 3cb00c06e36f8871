"""Reading /proc and signalling processes safely, for finding and killing a sandbox's tree."""

from __future__ import annotations

import functools
import os
import signal
import time
from collections.abc import Callable

_KILL_TIMEOUT = 5.0
_CLK_TCK = os.sysconf("SC_CLK_TCK")
_PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")


def _all_pids() -> list[int]:
    return [int(name) for name in os.listdir("/proc") if name.isdigit()]


def _stat_after_comm(pid: int) -> list[bytes] | None:
    """The fields of /proc/<pid>/stat after the command name (which may hold spaces and
    parentheses), or None if the process is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
    except OSError:
        return None
    return data[data.rfind(b")") + 2 :].split()


def _stat_fields(pid: int) -> tuple[str, int] | None:
    """(state, ppid) of a process, or None if it is gone."""
    rest = _stat_after_comm(pid)
    if rest is None:
        return None
    return rest[0].decode(), int(rest[1])


def _cpu_and_rss(pid: int) -> tuple[float, int] | None:
    """(CPU seconds, user+system; resident bytes) of a process, or None if it is gone."""
    rest = _stat_after_comm(pid)
    if rest is None:
        return None
    return (int(rest[11]) + int(rest[12])) / _CLK_TCK, int(rest[21]) * _PAGE_SIZE


def _is_live(pid: int) -> bool:
    """Exists and is not a zombie (zombies hold no resources and cannot act)."""
    fields = _stat_fields(pid)
    return fields is not None and fields[0] not in ("Z", "X")


def _real_uid(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status", "rb") as f:
            for line in f:
                if line.startswith(b"Uid:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def _pids_of_uid(uid: int) -> list[int]:
    return [p for p in _all_pids() if _real_uid(p) == uid and _is_live(p)]


def _pid_ns(pid: int) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/ns/pid")
    except OSError:
        return None


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return [p for p in _all_pids() if (_stat_fields(p) or ("", -1))[1] == pid]


def _signal_pid(pid: int, sig: int, still_member: Callable[[int], bool]) -> None:
    """Signal ``pid`` if, once pinned by a pidfd, it still belongs to the sandbox."""
    try:
        pidfd = os.pidfd_open(pid)
    except OSError:
        return
    try:
        if still_member(pid):
            signal.pidfd_send_signal(pidfd, sig)
    except OSError:
        pass
    finally:
        os.close(pidfd)


def _live_member(members: set[int], pid: int) -> bool:
    return pid in members and _is_live(pid)


def _kill_until_gone(members: Callable[[], list[int]], timeout: float = _KILL_TIMEOUT) -> bool:
    """SIGKILL everything ``members()`` lists until it lists nothing; True on success."""
    deadline = time.monotonic() + timeout
    while True:
        pids = members()
        if not pids:
            return True
        if time.monotonic() > deadline:
            return False
        still_member = functools.partial(_live_member, set(pids))
        for pid in pids:
            _signal_pid(pid, signal.SIGKILL, still_member)
        time.sleep(0.01)
