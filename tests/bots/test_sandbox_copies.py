"""The per-launch copy of a bot's files (arena/sandbox/copies.py): what it copies, where
it goes when /dev/shm is full, that the bot runs on it and that nothing of it outlives the bot
or a dead platform."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from arena import sandbox as sb
from arena.sandbox import copies
from tests.bots.conftest import need_bwrap
from tests.bots.test_sandbox import GRACE, ROOT, log_text
from tests.support import need


def bot_folder(root: Path) -> Path:
    bot = root / "bot"
    (bot / "lib").mkdir(parents=True)
    (bot / "main.py").write_text("print('hello')\n")
    (bot / "main.py").chmod(0o644)
    (bot / "lib" / "run.sh").write_text("#!/bin/sh\n")
    (bot / "lib" / "run.sh").chmod(0o755)
    (bot / "lib").chmod(0o755)
    (bot / "link").symlink_to("/etc/hostname")  # a link, never the file behind it
    os.mkfifo(bot / "pipe")  # copying would block on it: left out
    bot.chmod(0o755)
    return bot


def test_a_copy_has_the_files_modes_and_links_but_new_inodes(tmp_path: Path) -> None:
    bot = bot_folder(tmp_path)
    policy = sb.SandboxPolicy(copy_dir=tmp_path)
    copy = copies.make_copy(bot, policy)
    try:
        assert copy.parent == tmp_path and copy.name.startswith(f"arena-bot-files-{os.getpid()}-")
        assert sorted(p.name for p in copy.iterdir()) == ["lib", "link", "main.py"]
        assert (copy / "main.py").read_text() == "print('hello')\n"
        assert stat.S_IMODE((copy / "lib" / "run.sh").stat().st_mode) == 0o755
        assert stat.S_IMODE((copy / "main.py").stat().st_mode) == 0o644
        assert stat.S_IMODE(copy.stat().st_mode) == 0o755
        assert os.readlink(copy / "link") == "/etc/hostname"
        assert (copy / "main.py").stat().st_ino != (bot / "main.py").stat().st_ino
    finally:
        copies.remove_copy(copy)
    assert not copy.exists()


def test_a_full_first_place_falls_back_to_the_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 64 KiB tmpfs stands for a small /dev/shm: the 1 MiB bot goes to the next place."""
    need(ROOT, "mounting a small tmpfs needs root")
    small, spare = tmp_path / "small", tmp_path / "spare"
    small.mkdir()
    spare.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(small)], check=True)
    try:
        bot = bot_folder(tmp_path)
        (bot / "big.bin").write_bytes(os.urandom(1 << 20))
        monkeypatch.setattr(copies, "copy_dirs", lambda policy: [small, spare])
        copy = copies.make_copy(bot, sb.SandboxPolicy())
        assert copy.parent == spare and (copy / "big.bin").stat().st_size == 1 << 20
        assert list(small.iterdir()) == []  # the failed attempt was removed
        copies.remove_copy(copy)
        monkeypatch.setattr(copies, "copy_dirs", lambda policy: [small])
        with pytest.raises(sb.SandboxError, match=r"cannot copy the bot.s files.*No space left"):
            copies.make_copy(bot, sb.SandboxPolicy())
    finally:
        subprocess.run(["umount", str(small)], check=True)


def test_the_sweep_removes_the_copies_of_dead_platforms_only(tmp_path: Path) -> None:
    policy = sb.SandboxPolicy(copy_dir=tmp_path)
    mine = copies.make_copy(bot_folder(tmp_path), policy)
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    theirs = tmp_path / f"arena-bot-files-{dead.stdout.strip()}-abc"
    theirs.mkdir()
    (theirs / "bot.py").write_text("x")
    alive = tmp_path / f"arena-bot-files-{os.getppid()}-def"  # a live process's
    alive.mkdir()
    assert copies.sweep_copies(policy) == 1
    assert not theirs.exists() and mine.exists() and alive.exists()


PROBE = textwrap.dedent(
    """
    import os
    print(os.stat("/bot/probe.py").st_ino, flush=True)
    try:
        open("/bot/new.txt", "w")
    except OSError as exc:
        print("write", exc.errno, flush=True)
    """
)


def test_the_bot_runs_on_its_copy_which_goes_at_stop(area: Path) -> None:
    need_bwrap()
    bot = area / "bot"
    bot.mkdir(mode=0o755)
    (bot / "probe.py").write_text(PROBE)
    (bot / "probe.py").chmod(0o644)
    policy = sb.SandboxPolicy(mode="bwrap", stop_grace_seconds=GRACE)
    proc = sb.launch(["python3", "probe.py"], bot, log_path=area / "bot.log", policy=policy)
    copy = proc._private_copy
    assert copy is not None and copy.is_dir() and copy != bot
    assert proc.wait(timeout=30) == 0
    inode, write = log_text(proc).split("\n")[:2]
    assert int(inode) == (copy / "probe.py").stat().st_ino != (bot / "probe.py").stat().st_ino
    assert write == "write 30"  # EROFS: the copy is read-only in the sandbox
    proc.stop()
    assert not copy.exists()
    assert sorted(p.name for p in bot.iterdir()) == ["probe.py"]  # the original untouched
