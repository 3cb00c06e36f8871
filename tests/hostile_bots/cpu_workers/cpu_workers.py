"""Hides its CPU time from a count of its live processes: it forks short-lived workers,
each ``setsid()`` away and forked once more so that its parent never waits for it (no
parent's ``cutime`` gets its time either), which burn ``argv[1]`` CPU seconds each and exit.
Reports ``BURNED <seconds>``, the workers' own count of the CPU they used, then idles."""

import os
import sys
import time

WORKERS = 4


def burn(seconds: float, report: int) -> None:
    os.setsid()
    if os.fork():
        os._exit(0)  # the grandchild burns: bwrap's init, not this program, reaps it
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass
    os.write(report, f"{time.process_time()}\n".encode())
    os._exit(0)


def main() -> None:
    seconds = float(sys.argv[1])
    read, write = os.pipe()
    for _ in range(WORKERS):
        if os.fork() == 0:
            os.close(read)
            burn(seconds, write)
        os.wait()  # the intermediate child, at once
    os.close(write)
    with os.fdopen(read) as reports:
        burned = sum(float(line) for line in reports)  # EOF: every worker has exited
    print(f"BURNED {burned:.3f}", flush=True)
    time.sleep(600)


main()
