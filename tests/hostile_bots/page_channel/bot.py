"""A live channel between two sandboxes running at once, through the pages of the biggest
files both can see (benchmarks/live_cache_channel.py measures it, with the sandbox's view
and with the old one).

``channel.json`` in the bot's folder says what to do: ``role`` (``send`` or ``receive``),
``bits`` (the sender's message), ``region`` (which part of the page slots this run uses, as
two colluders would derive it from what they both know) and ``at`` (a wall-clock time both
read from the shared kernel). Two pages stand for each bit, 64 KiB apart (readahead, large
folios), in a MADV_RANDOM mapping (no readahead on a fault). At ``at`` the sender touches the
first page of each bit that is 1 and the second of each that is 0; at ``at + lag`` the
receiver times its first touch of both and takes the faster one for the touched one. A page
the sender read from disk is then cached and its touch is a minor fault: microseconds, not
the tenth of a millisecond or more of a read. It reports:

    READY <seconds after at, negative: early> <files>
    SENT <n> bits in <ms> ms            (sender)
    RECEIVED <bits> in <ms> ms          (receiver)
"""

import json
import mmap
import os
import sys
import time

STRIDE = 64 * 1024
SKIP = {"/proc", "/dev", "/sys", "/tmp", "/bot"}


def say(text):
    print(text, file=sys.stderr, flush=True)


def big_files(count=4):
    """The biggest regular files in the sandbox (the same list in both: the same view)."""
    found = []
    for top in sorted(os.listdir("/")):
        start = "/" + top
        if start in SKIP or os.path.islink(start) or not os.path.isdir(start):
            continue
        for where, dirs, files in os.walk(start):
            dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(where, d))]
            for name in files:
                path = os.path.join(where, name)
                try:
                    if not os.path.islink(path) and os.access(path, os.R_OK):
                        found.append((os.path.getsize(path), path))
                except OSError:
                    pass
    found.sort(key=lambda item: (-item[0], item[1]))
    return [path for _size, path in found[:count]]


def slots(files):
    out = []
    for path in files:
        size = os.path.getsize(path)
        out += [(path, off) for off in range(STRIDE, size - STRIDE, STRIDE)]
    return out


class Pages:
    def __init__(self):
        self.maps = {}

    def open(self, path):
        """Map ``path`` (touching none of its pages)."""
        fd = os.open(path, os.O_RDONLY)
        self.maps[path] = mmap.mmap(fd, 0, prot=mmap.PROT_READ)
        os.close(fd)
        self.maps[path].madvise(mmap.MADV_RANDOM)

    def touch(self, path, offset):
        """Touch one page; the nanoseconds it took."""
        page = self.maps[path]
        started = time.perf_counter_ns()
        page[offset]
        return time.perf_counter_ns() - started


def wait_until(moment):
    while (left := moment - time.time()) > 0:
        time.sleep(min(left, 0.05))


def main():
    with open("channel.json") as f:
        job = json.load(f)
    bits = job["bits"] if job["role"] == "send" else "0" * job["count"]
    files = big_files()
    all_slots = slots(files)
    parts = max(1, len(all_slots) // (2 * len(bits)))
    first = (job["region"] % parts) * 2 * len(bits)
    mine = all_slots[first : first + 2 * len(bits)]
    pages = Pages()
    for path in files:  # before the deadline
        pages.open(path)
    say(f"READY {time.time() - job['at']:.2f} {' '.join(files)}")
    if job["role"] == "send":
        wait_until(job["at"])
        started = time.perf_counter()
        for i, bit in enumerate(bits):
            pages.touch(*mine[2 * i + (0 if bit == "1" else 1)])
        say(f"SENT {len(bits)} bits in {(time.perf_counter() - started) * 1000:.1f} ms")
        return
    wait_until(job["at"] + job["lag"])
    started = time.perf_counter()
    got = []
    for i in range(len(bits)):
        one = pages.touch(*mine[2 * i])
        zero = pages.touch(*mine[2 * i + 1])
        got.append("1" if one < zero else "0")
    ms = (time.perf_counter() - started) * 1000
    say(f"RECEIVED {''.join(got)} in {ms:.1f} ms")


if __name__ == "__main__":
    main()
