"""A seccomp filter that stops the bot from creating user namespaces (root-mode bwrap has no
user namespace of its own, so ``--disable-userns`` does not apply): inside one a bot could
mount a tmpfs of any size and reach kernel code that needs privileges."""

from __future__ import annotations

import errno
import platform
import struct

# Classic BPF opcodes and seccomp return values (linux/filter.h, linux/seccomp.h).
_LD_ABS_W = 0x20
_JEQ = 0x15
_JGE = 0x35
_JSET = 0x45
_RET = 0x06
_ALLOW = 0x7FFF0000
_ERRNO = 0x00050000
_CLONE_NEWUSER = 0x10000000
_X32_BIT = 0x40000000

# machine -> (AUDIT_ARCH, unshare, clone, clone3, has an x32 ABI to refuse)
_ARCHES = {
    "x86_64": (0xC000003E, 272, 56, 435, True),
    "aarch64": (0xC00000B7, 97, 220, 435, False),
}

# struct seccomp_data: nr at 0, arch at 4, args[0] at 16 (its low 32 bits first: little endian)
_NR, _ARCH, _ARG0_LOW = 0, 4, 16


def _op(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def no_userns_filter(machine: str | None = None) -> bytes | None:
    """The filter program for bwrap's ``--seccomp FD`` (None: unknown architecture).

    unshare/clone with CLONE_NEWUSER fail with EPERM; clone3 (whose flags live in memory a
    filter cannot read) fails with ENOSYS, so libc falls back to clone; system calls of any
    other ABI (x32, 32-bit compat) fail with ENOSYS, as their numbers differ."""
    arch = _ARCHES.get(machine or platform.machine())
    if arch is None:
        return None
    audit_arch, unshare, clone, clone3, x32 = arch
    enosys, eperm = _ERRNO | errno.ENOSYS, _ERRNO | errno.EPERM
    prog = [
        _op(_LD_ABS_W, _ARCH),
        _op(_JEQ, audit_arch, jt=1),
        _op(_RET, enosys),  # a foreign ABI
        _op(_LD_ABS_W, _NR),
        _op(_JGE, _X32_BIT if x32 else 0xFFFFFFFF, jf=1),
        _op(_RET, enosys),  # x32
        _op(_JEQ, clone3, jf=1),
        _op(_RET, enosys),
        _op(_JEQ, unshare, jt=1),
        _op(_JEQ, clone, jf=3),
        _op(_LD_ABS_W, _ARG0_LOW),
        _op(_JSET, _CLONE_NEWUSER, jf=1),
        _op(_RET, eperm),
        _op(_RET, _ALLOW),
    ]
    return b"".join(prog)
