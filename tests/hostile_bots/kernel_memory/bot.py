"""Carries what it saw in game 1 into games 2-4 through kernel state that outlives its
processes, and reports on stderr, its log, what came back:

- kernel keys: its hand as the description of world-readable "user" keys in its session and
  user keyrings; later games list /proc/keys. It also looks there for a key the operator's
  session holds (``arena-operator-secret``);
- the page cache: card i of its hand = page i of a file cached. In game 1 it drops the file
  from the cache (``posix_fadvise(DONTNEED)``) and reads the pages of its cards; later games
  read the state without changing it (``preadv2(RWF_NOWAIT)``, else ``mincore``, which the
  kernel answers truly only for files the caller may write). Once with
  its own package's ``pad.bin`` ("own"), once with a file of the shared Python runtime
  ("shared").

    WROTE game 0 via <channel>: ok | <why not>
    REMEMBERED game <g> via <channel>: <cards>   (keys: one line per hand found)
    NOTHING game <g> via <channel>: <why>
    OPERATOR KEY SEEN game <g>: <line>
"""

import contextlib
import ctypes
import errno
import mmap
import os
import pydoc_data
import re
import sys

from arena.game.cards import CARDS
from arena.sdk import Bot, serve

NAMES = [str(c) for c in CARDS]
PAGE = mmap.PAGESIZE
TAG = "callbreak-memory:"
LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.mmap.restype = ctypes.c_void_p
LIBC.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int]
LIBC.mmap.argtypes += [ctypes.c_long]
ADD_KEY, KEYCTL = 248, 250  # x86_64
KEYCTL_SETPERM, KEYCTL_SET_TIMEOUT = 5, 15
SESSION, USER = -3, -4
FILES = {
    "own": os.path.join(os.getcwd(), "pad.bin"),
    "shared": os.path.join(os.path.dirname(pydoc_data.__file__), "topics.py"),
}


def say(text):
    print(text, file=sys.stderr, flush=True)


def why(exc_or_errno):
    code = exc_or_errno if isinstance(exc_or_errno, int) else exc_or_errno.errno
    return errno.errorcode.get(code or 0, str(code))


# --------------------------------------------------------------------------- keys


def write_keys(cards):
    desc = (TAG + " ".join(cards)).encode()
    for ring in (SESSION, USER):
        key = LIBC.syscall(ADD_KEY, b"user", desc, b"x", 1, ring)
        if key < 0:
            return why(ctypes.get_errno())
        LIBC.syscall(KEYCTL, KEYCTL_SETPERM, key, 0x3F3F3F3F)
        LIBC.syscall(KEYCTL, KEYCTL_SET_TIMEOUT, key, 120)  # leave the host clean
    return "ok"


def read_keys(game):
    try:
        with open("/proc/keys") as f:
            text = f.read()
    except OSError as exc:
        return None, why(exc)
    for line in text.splitlines():
        if "arena-operator-secret" in line:
            say(f"OPERATOR KEY SEEN game {game}: {line}")
    found = re.findall(re.escape(TAG) + r"((?:[2-9TJQKA][SHDC] ?){13})", text)
    hands = [hand.split() for hand in dict.fromkeys(found)]
    return hands, "no key of an earlier game in /proc/keys"


# --------------------------------------------------------------------------- page cache


def write_cache(path, cards):
    fd = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)  # no readahead: one page per read
        for i in range(len(NAMES)):  # wait for any read in flight: a locked page stays
            os.pread(fd, 1, i * PAGE)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)  # all bits 0
        for card in cards:
            os.pread(fd, 1, NAMES.index(card) * PAGE)
        return "ok"
    except OSError as exc:
        return why(exc)
    finally:
        os.close(fd)


def cached_pages(fd, count):
    """Which of the first ``count`` pages are cached, read without caching any:
    preadv2(RWF_NOWAIT) page by page (no readahead on this fd), else mincore on a mapping
    (which the kernel answers truly only for files the caller may write)."""
    found, buf = [], bytearray(1)
    try:
        with contextlib.suppress(OSError):
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)
        for i in range(count):
            try:
                os.preadv(fd, [buf], i * PAGE, os.RWF_NOWAIT)
                found.append(i)
            except BlockingIOError:
                pass
        return found, None
    except OSError as exc:
        problem = f"preadv2(RWF_NOWAIT) {why(exc)}"
    size = count * PAGE
    address = LIBC.mmap(None, size, 1, 1, fd, 0)  # PROT_READ, MAP_SHARED
    vec = (ctypes.c_ubyte * count)()
    failed = LIBC.mincore(ctypes.c_void_p(address), ctypes.c_size_t(size), vec)
    problem += f", mincore {why(ctypes.get_errno())}"
    LIBC.munmap(ctypes.c_void_p(address), ctypes.c_size_t(size))
    return (None, problem) if failed else ([i for i in range(count) if vec[i] & 1], None)


def read_cache(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        pages, problem = cached_pages(fd, len(NAMES))
        if pages is None:
            return None, problem
        return [NAMES[i] for i in pages], "no page of the file cached"
    finally:
        os.close(fd)


# --------------------------------------------------------------------------- the bot


class KernelMemory(Bot):
    name = "kernel-memory"

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
        cards = [str(c) for c in obs.hand]
        if game == 0:
            say(f"WROTE game 0 via keys: {write_keys(cards)}")
            for label, path in FILES.items():
                say(f"WROTE game 0 via cache:{label}: {write_cache(path, cards)}")
            return
        hands, reason = read_keys(game)
        for hand in hands or [None]:  # the keys may hold other matches' hands too
            self.report(game, "keys", hand, reason)
        for label, path in FILES.items():
            found, reason = read_cache(path)
            self.report(game, f"cache:{label}", found, reason)
            if found and 13 <= len(found) <= 16:  # a page or three others cached meanwhile
                write_cache(path, found)  # the reading cached pages too: set them back

    @staticmethod
    def report(game, channel, found, reason):
        if found and 13 <= len(found) <= 16:  # a page or three others cached meanwhile
            say(f"REMEMBERED game {game} via {channel}: {' '.join(found)}")
        else:
            say(f"NOTHING game {game} via {channel}: {reason} ({len(found or [])} cards)")


if __name__ == "__main__":
    serve(KernelMemory())
