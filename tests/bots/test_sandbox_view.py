"""The bwrap sandbox's view of the host (arena/sandbox/view.py): exactly the runtimes'
files, every page of them resident before a bot starts, so that two seats playing at once
cannot signal through the first-touch timing of shared pages. Structural facts only: the
live channel itself is measured by benchmarks/live_cache_channel.py (timing, not a test)."""

from __future__ import annotations

import ctypes
import json
import mmap
import os
import textwrap
from pathlib import Path

import pytest

from arena import sandbox as sb
from arena.sandbox.view import view_for
from tests.support import need

pytestmark = pytest.mark.slow

LISTER = textwrap.dedent(
    """
    import json, os
    found = []
    for top in sorted(os.listdir("/")):
        if top in ("proc", "dev", "bot") or os.path.islink("/" + top):
            continue
        for where, dirs, files in os.walk("/" + top):
            for name in files:
                path = os.path.join(where, name)
                if os.path.isfile(path) and not os.path.islink(path):
                    found.append(path)
    # the differences only: the whole list is past a bot log's cap on a well-stocked host
    expected = set(json.load(open("expected.json")))
    report = {"extra": sorted(set(found) - expected), "missing": sorted(expected - set(found))}
    report["probe"] = {p: os.path.exists(p) for p in PROBE}
    print(json.dumps(report))
    """
)


def need_bwrap() -> sb.SandboxPolicy:
    policy = sb.SandboxPolicy(mode="bwrap", stop_grace_seconds=0.5)
    need(sb._bwrap_problem(policy) is None, "bwrap is not usable here")
    return policy


def biggest_host_files(top: str, count: int, leave_out: set[str]) -> list[str]:
    found = []
    for where, _dirs, files in os.walk(top):
        for name in files:
            path = os.path.join(where, name)
            if os.path.isfile(path) and not os.path.islink(path) and path not in leave_out:
                found.append((os.path.getsize(path), path))
    return [path for _size, path in sorted(found, reverse=True)[:count]]


def test_a_bot_sees_exactly_the_view_and_no_other_host_file(tmp_path: Path) -> None:
    policy = need_bwrap()
    view = view_for(policy)
    absent = biggest_host_files("/usr/lib", 5, set(view.files))
    assert absent, "no big host files to look for"
    bot = tmp_path / "bot"
    bot.mkdir(mode=0o755)
    tmp_path.chmod(0o755)
    (bot / "lister.py").write_text(f"PROBE = {absent!r}\n{LISTER}")
    (bot / "expected.json").write_text(json.dumps(sorted(view.files)))
    for name in ("lister.py", "expected.json"):
        (bot / name).chmod(0o644)
    with sb.launch(["python3", "lister.py"], bot, log_path=tmp_path / "log", policy=policy) as proc:
        assert proc.wait(timeout=60) == 0, proc.log_path.read_text()[-2000:]
    report = json.loads(proc.log_path.read_text().splitlines()[0])
    assert report["extra"] == [] and report["missing"] == [], report
    assert report["probe"] == dict.fromkeys(absent, False)
    # What bots need is there: the platform's Python, its distributions, ld.so, the tools.
    assert any(path.endswith("/numba/__init__.py") for path in view.files)
    assert any("/grpc/_cython/cygrpc." in path for path in view.files)
    assert any(os.path.basename(path).startswith("ld-linux") for path in view.files)


def test_every_page_of_the_view_is_resident_before_a_bot_starts() -> None:
    policy = need_bwrap()
    view = view_for(policy)
    assert view.on_tmpfs
    # From the platform's side, which gets true mincore answers (bots are refused the call).
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int]
    libc.mmap.argtypes += [ctypes.c_int, ctypes.c_long]
    libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]
    libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    page = mmap.PAGESIZE
    missing, pages = [], 0
    for path in view.files:
        copy = str(view.root) + path
        fd = os.open(copy, os.O_RDONLY | os.O_NOFOLLOW)
        try:
            size = os.fstat(fd).st_size
            if size == 0:
                continue
            address = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
            assert address not in (None, ctypes.c_void_p(-1).value), copy
            vec = ctypes.create_string_buffer((size + page - 1) // page)
            try:
                assert libc.mincore(address, size, vec) == 0, os.strerror(ctypes.get_errno())
            finally:
                libc.munmap(address, size)
        finally:
            os.close(fd)
        pages += len(vec.raw)
        if any(b & 1 == 0 for b in vec.raw):
            missing.append(path)
    assert pages > 10_000  # the runtimes: hundreds of MB
    assert missing == []
