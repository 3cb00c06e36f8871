"""The bot's seccomp filter: the system calls that open channels through the shared kernel.

Namespaces separate what a bot can name, not what the kernel keeps for everyone. Without
this filter a bot could create a user namespace of its own (root-mode bwrap has none, so
``--disable-userns`` does not apply) and mount a tmpfs of any size there; store the hands it
saw as kernel keys that a fresh process of a later game reads back; publish its hand to a
partner at the same table as POSIX locks on a file every sandbox sees; read page-cache state
without changing it (``RWF_NOWAIT``, ``mincore``, ``cachestat``) or clear it (``fadvise``,
``MADV_PAGEOUT``), which makes every page of a shared file a bit that outlives the process;
or watch shared files for a partner's accesses (inotify, fanotify). It could also move
host-wide counters that never reset (/proc/vmstat's ``pglazyfree`` by ``MADV_FREE``,
``numa_interleave`` by faults under an interleaving memory policy, ``nr_foll_pin_acquired``
by ``process_vm_readv``), read the host's free blocks (``statfs``: the platform writes bot
logs to the host's disk) or the kernel log. The sandbox's /proc shows none of those
counters (procview.py); the calls that move them are refused here too. docs/sandbox.md
lists what remains (timing, fault-around)."""

from __future__ import annotations

import errno
import platform
import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

# Classic BPF opcodes and seccomp return values (linux/filter.h, linux/seccomp.h).
_LD_ABS_W = 0x20
_JEQ = 0x15
_JGE = 0x35
_JSET = 0x45
_JA = 0x05
_RET = 0x06
_ALLOW = 0x7FFF0000
_ERRNO = 0x00050000
_X32_BIT = 0x40000000

_CLONE_NEWUSER = 0x10000000
_RWF_NOWAIT = 0x8
# fcntl commands that take, test or drop a record lock: F_GETLK, F_SETLK, F_SETLKW and their
# open-file-description twins F_OFD_GETLK, F_OFD_SETLK, F_OFD_SETLKW.
_LOCK_COMMANDS = (5, 6, 7, 36, 37, 38)
_MADV_COLD, _MADV_PAGEOUT = 20, 21  # push file pages out of the cache
_MADV_FREE = 8  # counted host-wide (pglazyfree); EINVAL, as before Linux 4.5: callers fall back

# System call numbers that differ between the two architectures (the rest are shared).
_X86_64 = {
    "add_key": 248,
    "request_key": 249,
    "keyctl": 250,
    "flock": 73,
    "fcntl": 72,
    "mincore": 27,
    "madvise": 28,
    "fadvise64": 221,
    "readahead": 187,
    "preadv2": 327,
    "pwritev2": 328,
    "io_setup": 206,
    "inotify_init": 253,
    "inotify_init1": 294,
    "fanotify_init": 300,
    "perf_event_open": 298,
    "unshare": 272,
    "clone": 56,
    "mbind": 237,
    "set_mempolicy": 238,
    "get_mempolicy": 239,
    "migrate_pages": 256,
    "move_pages": 279,
    "process_vm_readv": 310,
    "process_vm_writev": 311,
    "syslog": 103,
    "ustat": 136,
    "statfs": 137,
    "fstatfs": 138,
}
_AARCH64 = {
    "add_key": 217,
    "request_key": 218,
    "keyctl": 219,
    "flock": 32,
    "fcntl": 25,
    "mincore": 232,
    "madvise": 233,
    "fadvise64": 223,
    "readahead": 213,
    "preadv2": 286,
    "pwritev2": 287,
    "io_setup": 0,
    "inotify_init1": 26,
    "fanotify_init": 262,
    "perf_event_open": 241,
    "unshare": 97,
    "clone": 220,
    "mbind": 235,
    "get_mempolicy": 236,
    "set_mempolicy": 237,
    "migrate_pages": 238,
    "move_pages": 239,
    "process_vm_readv": 270,
    "process_vm_writev": 271,
    "syslog": 116,
    "statfs": 43,
    "fstatfs": 44,
}
_SHARED = {
    "io_uring_setup": 425,
    "io_uring_enter": 426,
    "io_uring_register": 427,
    "clone3": 435,
    "process_madvise": 440,
    "set_mempolicy_home_node": 450,
    "cachestat": 451,
}


@dataclass(frozen=True)
class _Arch:
    audit: int
    numbers: dict[str, int]
    x32: bool  # has an x32 ABI (numbers with bit 30 set) to refuse


_ARCHES = {
    "x86_64": _Arch(0xC000003E, _X86_64 | _SHARED, True),
    "aarch64": _Arch(0xC00000B7, _AARCH64 | _SHARED, False),
}

# Refused outright: call -> errno. ENOSYS where a runtime may probe and fall back (io_uring,
# kernel AIO, cachestat), EPERM for the keyring as container runtimes do.
_REFUSED = {
    **dict.fromkeys(("add_key", "request_key", "keyctl"), errno.EPERM),
    "flock": errno.ENOLCK,
    **dict.fromkeys(("mincore", "cachestat", "fadvise64", "readahead"), errno.ENOSYS),
    **dict.fromkeys(("io_uring_setup", "io_uring_enter", "io_uring_register"), errno.ENOSYS),
    **dict.fromkeys(("io_setup", "process_madvise"), errno.ENOSYS),
    **dict.fromkeys(("inotify_init", "inotify_init1", "fanotify_init"), errno.ENOSYS),
    "perf_event_open": errno.EACCES,
    "clone3": errno.ENOSYS,  # its flags are in memory a filter cannot read; libc falls back
}
# Host-wide counters and other processes' memory (the channel rules too, off with them).
# ENOSYS for the memory policy calls, as on a kernel without NUMA (libnuma and OpenBLAS then
# do without), for cross-memory attach likewise; statfs ENOSYS, which glibc's pathconf
# answers with its defaults; the kernel log EPERM, as with dmesg_restrict.
_REFUSED_COUNTERS = {
    **dict.fromkeys(("set_mempolicy", "get_mempolicy", "mbind"), errno.ENOSYS),
    **dict.fromkeys(("migrate_pages", "move_pages", "set_mempolicy_home_node"), errno.ENOSYS),
    **dict.fromkeys(("process_vm_readv", "process_vm_writev"), errno.ENOSYS),
    **dict.fromkeys(("statfs", "fstatfs", "ustat"), errno.ENOSYS),
    "syslog": errno.EPERM,
}
_REFUSED |= _REFUSED_COUNTERS

# seccomp_data: nr at 0, arch at 4, args[i] at 16 + 8i (low 32 bits first: little endian).
_NR, _ARCH = 0, 4


def _arg(i: int) -> int:
    return 16 + 8 * i


@dataclass(frozen=True)
class _ArgRule:
    """Refuse ``call`` with ``errno`` when its argument ``arg`` equals one of ``values``, or
    (``flag``) has that bit set."""

    call: str
    arg: int
    errno: int
    values: tuple[int, ...] = ()
    flag: int = 0


_ARGUMENT_RULES = (
    _ArgRule("clone", 0, errno.EPERM, flag=_CLONE_NEWUSER),
    _ArgRule("unshare", 0, errno.EPERM, flag=_CLONE_NEWUSER),
    _ArgRule("fcntl", 1, errno.ENOLCK, values=_LOCK_COMMANDS),
    _ArgRule("preadv2", 5, errno.EOPNOTSUPP, flag=_RWF_NOWAIT),
    _ArgRule("pwritev2", 5, errno.EOPNOTSUPP, flag=_RWF_NOWAIT),
    _ArgRule("madvise", 2, errno.EPERM, values=(_MADV_COLD, _MADV_PAGEOUT)),
    _ArgRule("madvise", 2, errno.EINVAL, values=(_MADV_FREE,)),
)


def _op(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def _ret_errno(code: int) -> bytes:
    return _op(_RET, _ERRNO | code)


def _argument_block(rules: Sequence[_ArgRule]) -> list[bytes]:
    """Test the arguments of one call, rule by rule, and allow it when none matches (the
    number is no longer in the accumulator afterwards, so the block ends in a return)."""
    block: list[bytes] = []
    for rule in rules:
        block.append(_op(_LD_ABS_W, _arg(rule.arg)))
        if rule.flag:
            block.append(_op(_JSET, rule.flag, jt=1))
        else:
            count = len(rule.values)
            block += [_op(_JEQ, v, jt=count - i) for i, v in enumerate(rule.values)]
        block += [_op(_JA, 1), _ret_errno(rule.errno)]
    return [*block, _op(_RET, _ALLOW)]


def _program(arch: _Arch, refused: Iterable[str], rules: Iterable[_ArgRule]) -> list[bytes]:
    by_arg: dict[str, list[_ArgRule]] = {}
    for rule in rules:
        if rule.call in arch.numbers:
            by_arg.setdefault(rule.call, []).append(rule)
    prog = [
        _op(_LD_ABS_W, _ARCH),
        _op(_JEQ, arch.audit, jt=1),
        _ret_errno(errno.ENOSYS),  # a foreign ABI (32-bit compat)
        _op(_LD_ABS_W, _NR),
        _op(_JGE, _X32_BIT if arch.x32 else 0xFFFFFFFF, jf=1),
        _ret_errno(errno.ENOSYS),  # x32
    ]
    for call in refused:
        if call in arch.numbers and call not in by_arg:
            prog += [_op(_JEQ, arch.numbers[call], jf=1), _ret_errno(_REFUSED[call])]
    for call, call_rules in by_arg.items():
        block = _argument_block(call_rules)
        prog += [_op(_JEQ, arch.numbers[call], jf=len(block)), *block]
    return [*prog, _op(_RET, _ALLOW)]


def bot_filter(machine: str | None = None, *, channels: bool = True) -> bytes | None:
    """The filter program for bwrap's ``--seccomp FD`` (None: unknown architecture).

    ``channels=False`` leaves only the user-namespace and foreign-ABI rules (what the filter
    was before the kernel channels were closed; for the tests' controls)."""
    arch = _ARCHES.get(machine or platform.machine())
    if arch is None:
        return None
    if channels:
        return b"".join(_program(arch, _REFUSED, _ARGUMENT_RULES))
    userns = [r for r in _ARGUMENT_RULES if r.call in ("clone", "unshare")]
    return b"".join(_program(arch, ["clone3"], userns))
