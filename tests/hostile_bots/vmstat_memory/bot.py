"""Carries what it saw in game 1 into games 2-4 through host-wide event counters that
never reset, and reports on stderr, its log, what came back.

Its hand is a number below C(52, 13) < 2**42, written 14 bits to a counter of /proc/vmstat:
in game 1 it moves each counter until the counter's value modulo 2**14 is its share (it
reads /proc/vmstat after each move: per-CPU counts are folded in within a second, and a
huge page may count once for 512), and later games read the three values back.

- ``lazyfree``: ``pglazyfree``, one per page given back with ``madvise(MADV_FREE)``;
- ``interleave``: ``numa_interleave``, one per page faulted in under
  ``set_mempolicy(MPOL_INTERLEAVE)``;
- ``pin``: ``nr_foll_pin_acquired``, one per page of its own memory it reads with
  ``process_vm_readv``;
- ``mlock``: ``unevictable_pgs_mlocked``, one per page locked with ``mlock`` (a call no
  filter refuses; other programs lock pages too, so it carries a copy of the first share
  only, reported on its own).

    WROTE game 0 via <channel>: ok | <errno of the call> | <why not>
    READ game <g> via <channel>: <share> | <why not>
    REMEMBERED game <g> via counters: <cards>
    NOTHING game <g> via counters: <why>
"""

import ctypes
import errno
import mmap
import os
import sys
import time
from math import comb

from arena.game.cards import CARDS
from arena.sdk import Bot, serve

NAMES = [str(c) for c in CARDS]
PAGE = mmap.PAGESIZE
BITS = 14
MOD = 1 << BITS
COUNTERS = {
    "lazyfree": "pglazyfree",
    "interleave": "numa_interleave",
    "pin": "nr_foll_pin_acquired",
    "mlock": "unevictable_pgs_mlocked",
}
SHARES = ("lazyfree", "interleave", "pin")  # the hand; mlock repeats the first share
LIBC = ctypes.CDLL(None, use_errno=True)
SET_MEMPOLICY = 238  # x86_64
MPOL_DEFAULT, MPOL_INTERLEAVE = 0, 3
MADV_FREE = 8


def say(text):
    print(text, file=sys.stderr, flush=True)


def name_of(code):
    return errno.errorcode.get(code, str(code))


# --------------------------------------------------------------------------- the hand


def rank(cards):
    """The hand's number in the combinatorial number system (below C(52, 13))."""
    indices = sorted(NAMES.index(c) for c in cards)
    return sum(comb(index, k + 1) for k, index in enumerate(indices))


def unrank(number):
    cards = []
    for k in range(13, 0, -1):
        index = k - 1
        while comb(index + 1, k) <= number:
            index += 1
        number -= comb(index, k)
        cards.append(NAMES[index])
    return sorted(cards)


# --------------------------------------------------------------------------- counters


def vmstat():
    try:
        with open("/proc/vmstat") as f:
            pairs = (line.split() for line in f)
            return {p[0]: int(p[1]) for p in pairs if len(p) == 2}
    except OSError:
        return {}


def fresh_pages(count):
    """``count`` private anonymous pages, each faulted in (no huge pages)."""
    area = mmap.mmap(-1, max(count, 1) * PAGE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    area.madvise(mmap.MADV_NOHUGEPAGE)
    for i in range(count):
        area[i * PAGE] = 1
    return area


def address_of(area):
    return ctypes.addressof(ctypes.c_char.from_buffer(area))


def lazyfree(count):
    area = fresh_pages(count)
    try:
        area.madvise(MADV_FREE)
    finally:
        area.close()


def interleave(count):
    mask = ctypes.c_ulong(1)
    if LIBC.syscall(SET_MEMPOLICY, MPOL_INTERLEAVE, ctypes.byref(mask), 64) != 0:
        raise OSError(ctypes.get_errno(), "set_mempolicy")
    try:
        fresh_pages(count).close()
    finally:
        LIBC.syscall(SET_MEMPOLICY, MPOL_DEFAULT, None, 0)


class Iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]


def pin(count):
    source, target = fresh_pages(count), fresh_pages(count)
    size = max(count, 1) * PAGE
    local = Iovec(address_of(target), size)
    remote = Iovec(address_of(source), size)
    got = LIBC.process_vm_readv(os.getpid(), ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)
    code = ctypes.get_errno()
    del local, remote
    source.close()
    target.close()
    if got < 0:
        raise OSError(code, "process_vm_readv")


def mlock(count):
    area = fresh_pages(count)
    try:
        address = ctypes.c_void_p(address_of(area))
        for start in range(0, count, 1024):  # within RLIMIT_MEMLOCK (8 MiB)
            part = min(1024, count - start)
            at = ctypes.c_void_p(address.value + start * PAGE)
            if LIBC.mlock(at, ctypes.c_size_t(part * PAGE)) != 0:
                raise OSError(ctypes.get_errno(), "mlock")
            LIBC.munlock(at, ctypes.c_size_t(part * PAGE))
    finally:
        area.close()


MOVES = {"lazyfree": lazyfree, "interleave": interleave, "pin": pin, "mlock": mlock}


def write(channel, share, seconds):
    """Move the channel's counter until its value is ``share`` modulo 2**14. A move may
    count more than its pages (page tables, under the interleaving policy): the excess of
    the last move is taken off the next."""
    try:
        MOVES[channel](1)  # does the call work at all?
    except OSError as exc:
        return name_of(exc.errno)
    counter, excess = COUNTERS[channel], 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = vmstat().get(counter)
        if value is None:
            return f"no {counter} in /proc/vmstat"
        missing = (share - value) % MOD
        if missing == 0:
            return "ok"
        pages = (missing - excess) % MOD or MOD
        MOVES[channel](pages)
        time.sleep(1.1)  # per-CPU counts are folded into the totals every second
        moved = (vmstat().get(counter, value) - value) % MOD
        excess = max(0, moved - pages)
    return "out of time"


def read(channel):
    value = vmstat().get(COUNTERS[channel])
    return None if value is None else value % MOD


# --------------------------------------------------------------------------- the bot


class VmstatMemory(Bot):
    name = "vmstat-memory"

    def __init__(self):
        super().__init__()
        self.done = False

    def call(self, obs):
        if not self.done and obs.deal == 0:
            self.done = True
            self.channels(obs)
        return obs.legal_calls[0]

    def play(self, obs):
        return obs.legal_cards[0]

    def channels(self, obs):
        game = self.game
        if game == 0:
            number = rank([str(c) for c in obs.hand])
            shares = [(number >> (BITS * i)) % MOD for i in range(len(SHARES))]
            for channel, share in [*zip(SHARES, shares, strict=True), ("mlock", shares[0])]:
                say(f"WROTE game 0 via {channel}: {write(channel, share, 6)}")
            return
        shares = {}
        for channel in COUNTERS:
            shares[channel] = read(channel)
            found = "unreadable" if shares[channel] is None else shares[channel]
            say(f"READ game {game} via {channel}: {found}")
        if any(shares[c] is None for c in SHARES):
            say(f"NOTHING game {game} via counters: /proc/vmstat shows no such counter")
            return
        number = sum(shares[c] << (BITS * i) for i, c in enumerate(SHARES))
        if number >= comb(52, 13):
            say(f"NOTHING game {game} via counters: {number} is no hand")
            return
        say(f"REMEMBERED game {game} via counters: {' '.join(unrank(number))}")


if __name__ == "__main__":
    serve(VmstatMemory())
