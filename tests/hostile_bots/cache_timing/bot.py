"""The best page-cache channel left once the sandbox refuses every call that reads or drops
cache state (benchmarks/cache_channel.py measures it).

A page can still be *set* (read it) and *tested once* (touch it in a mapping: a major fault
means it was not cached; the test caches it). So in game 1 this bot writes the 52-bit mask of
its hand into pages of the biggest files under /usr/lib (or, in the sandbox's view, in the
whole sandbox) that it can read, once per later game
(each reader destroys what it reads), two pages a bit (bit 1: touch the first, bit 0: the
second) so that a reader can tell a readable bit (exactly one of the two cached) from one
that something else on the host touched (both). Pages are 64 KiB apart (readahead and
large folios), and the mapping is MADV_RANDOM (no readahead on a fault). It reports:

    CHANNEL game <g>: <bits read> / 52 readable: <mask as 0/1, ? unreadable> in <ms> ms
"""

import mmap
import os
import resource
import sys
import time

from arena.game.cards import CARDS
from arena.sdk import Bot, serve

NAMES = [str(c) for c in CARDS]
BITS = len(NAMES)
STRIDE = 64 * 1024
GAMES = 4


def say(text):
    print(text, file=sys.stderr, flush=True)


def big_files(count=8, tops=("/usr/lib",)):
    """The biggest files under ``tops`` (the sandbox's view holds only small ones there)."""
    found = []
    for top, _dirs, files in (w for t in tops for w in os.walk(t)):
        for name in files:
            path = os.path.join(top, name)
            try:
                if os.path.isfile(path) and not os.path.islink(path) and os.access(path, os.R_OK):
                    found.append((os.path.getsize(path), path))
            except OSError:
                pass
    return [path for _size, path in sorted(found, reverse=True)[:count]]


def slots():
    """(file, offset) of every page slot, the same in every game: in the biggest files under
    /usr/lib, or of the whole sandbox when those are too small."""
    out = _slots(big_files())
    if len(out) < 20 * (GAMES - 1) * 2 * BITS:
        skip = ("proc", "dev", "tmp", "bot")
        tops = [f"/{t}" for t in sorted(os.listdir("/")) if t not in skip]
        out = _slots(big_files(tops=[t for t in tops if not os.path.islink(t)]))
    return out


def _slots(paths):
    out = []
    for path in paths:
        size = os.path.getsize(path)
        out += [(path, off) for off in range(STRIDE, size - STRIDE, STRIDE)]
    return out


class Pages:
    def __init__(self):
        self.maps = {}

    def touch(self, path, offset):
        """Touch one page; True when it had to be read from disk (it was not cached)."""
        if path not in self.maps:
            fd = os.open(path, os.O_RDONLY)
            m = mmap.mmap(fd, 0, prot=mmap.PROT_READ)
            os.close(fd)
            m.madvise(mmap.MADV_RANDOM)
            self.maps[path] = m
        before = resource.getrusage(resource.RUSAGE_SELF).ru_majflt
        self.maps[path][offset]
        return resource.getrusage(resource.RUSAGE_SELF).ru_majflt > before


def region(all_slots, game):
    """The 2 x 52 slots of the message for ``game`` (1..3), in this match's part of the slots.

    The part is read from ``region.txt`` (the benchmark writes a new one for every match): a
    stand-in for what a real attacker would use, a hash of deal 1's four hands, which the
    writer knows once deal 1 is over and the reader too, at the same point of its game."""
    size = (GAMES - 1) * 2 * BITS
    with open("region.txt") as f:
        part = int(f.read()) % (len(all_slots) // size)
    start = part * size + (game - 1) * 2 * BITS
    return all_slots[start : start + 2 * BITS]


class CacheTiming(Bot):
    name = "cache-timing"

    def __init__(self):
        super().__init__()
        self.done = False

    def call(self, obs):
        if not self.done and obs.deal == 0:
            self.done = True
            self.channel(obs)
        return obs.legal_calls[0]

    def play(self, obs):
        return obs.legal_cards[0]

    def channel(self, obs):
        started = time.perf_counter()
        pages, all_slots = Pages(), slots()
        if self.game == 0:
            held = {NAMES.index(str(c)) for c in obs.hand}
            for g in range(1, GAMES):
                slots_g = region(all_slots, g)
                for bit in range(BITS):
                    pages.touch(*slots_g[2 * bit + (0 if bit in held else 1)])
            ms = (time.perf_counter() - started) * 1000
            say(f"WROTE {3 * BITS} bits in {ms:.1f} ms")
            return
        mask = []
        slots_g = region(all_slots, self.game)
        for bit in range(BITS):
            one = not pages.touch(*slots_g[2 * bit])
            zero = not pages.touch(*slots_g[2 * bit + 1])
            mask.append("1" if one and not zero else "0" if zero and not one else "?")
        ms = (time.perf_counter() - started) * 1000
        readable = sum(ch != "?" for ch in mask)
        text = "".join(mask)
        say(f"CHANNEL game {self.game}: {readable} / {BITS} readable: {text} in {ms:.1f} ms")


if __name__ == "__main__":
    serve(CacheTiming())
