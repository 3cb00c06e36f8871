"""Running a bot's build command in the sandbox on a copy of its files, under its limits.

The copy is the build's own folder, writable at ``/bot`` (and the bot uid's, as root); the
platform watches it from outside while the build runs, and ends the build the moment it holds
more than the output cap, however the files got there. Time is the wall clock (each process's
CPU is also capped by its rlimit); memory is the sandbox's memory cgroup, /tmp included.
When the build is over the folder is checked once more; what is in it is the artifact.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from arena.bots.package import BotPackage
from arena.builds.limits import BuildLimits
from arena.sandbox import LOG_MARK, SandboxError, SandboxPolicy, launch
from arena.sandbox.limits import MiB

LOG_EXCERPT = 10 * 1024  # bytes of the log's start and of its end kept with the version
_WATCH_S = 0.2
_MAX_ENTRIES = 200_000  # files and folders the build's folder may hold while it runs


@dataclass(frozen=True)
class Build:
    """How a build went: ``reason`` is empty when it succeeded (``folder`` is then built)."""

    folder: Path
    reason: str
    log: str
    seconds: float

    @property
    def ok(self) -> bool:
        return not self.reason


def build_package(
    package: BotPackage,
    folder: Path,
    *,
    limits: BuildLimits,
    policy: SandboxPolicy | None,
    log_path: Path,
) -> Build:
    """Copy ``package``'s files to ``folder`` (which must not exist) and run its build there.
    A sandbox that cannot start raises ``SandboxError``: no verdict on the bot."""
    shutil.copytree(package.root, folder, symlinks=False)
    folder.chmod(0o755)
    begun = time.monotonic()
    try:
        proc = launch(
            package.build,
            folder,
            log_path=log_path,
            limits=limits.sandbox(),
            policy=policy,
            build=True,
        )
    except OSError as exc:  # the platform's failure, not the bot's: the caller keeps it pending
        raise SandboxError(f"the build could not start: {exc}") from exc
    try:
        proc.set_turn(True)  # its CPU share for the whole build
        reason = _watch(proc, folder, limits, begun)
        if not reason and proc.oom_kills():
            reason = f"ran out of memory (the build's limit is {limits.memory_bytes // MiB} MiB)"
        status = proc.returncode
    finally:
        proc.stop()
        proc.settle_log(1.0)
    if not reason and status:
        reason = _exit_reason(status, limits)
    if not reason:
        reason = _size_problem(folder, limits) or ""
    return Build(folder, reason, log_excerpt(log_path), time.monotonic() - begun)


def _watch(proc, folder: Path, limits: BuildLimits, begun: float) -> str:
    """Wait for the build to end; why it was stopped early ("" when it ended by itself)."""
    while True:
        try:
            proc.wait(timeout=_WATCH_S)
            return ""
        except subprocess.TimeoutExpired:
            pass
        if time.monotonic() - begun > limits.seconds:
            return f"ran past its time limit ({limits.seconds} s)"
        if problem := _size_problem(folder, limits):
            return problem


def _exit_reason(status: int, limits: BuildLimits) -> str:
    signal = status - 128 if status > 128 else -status if status < 0 else 0
    if signal == 24:  # SIGXCPU: a process passed its CPU rlimit
        return f"a build process used more than {limits.seconds} s of CPU"
    if signal == 25:  # SIGXFSZ
        return f"wrote a file larger than {limits.output_bytes // MiB} MiB"
    if signal == 9:
        return "was killed (signal 9; out of memory?)"
    return f"the build command exited with status {status}"


def _size_problem(folder: Path, limits: BuildLimits) -> str | None:
    """Whether the folder holds more than the output cap (bytes, or entries), counted without
    following a link and without recursion (a deep tree cannot exhaust the walk)."""
    total, entries, todo = 0, 0, [str(folder)]
    while todo:
        try:
            scan = os.scandir(todo.pop())
        except OSError:
            continue  # removed while we looked, or made unreadable: the final check sees it
        with scan:
            for entry in scan:
                entries += 1
                try:
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                if stat.S_ISDIR(info.st_mode):
                    todo.append(entry.path)
                else:
                    total += max(info.st_size, info.st_blocks * 512)
        if total > limits.output_bytes:
            return f"wrote more than its {limits.output_bytes // MiB} MiB of files"
        if entries > _MAX_ENTRIES:
            return f"wrote more than {_MAX_ENTRIES} files"
    return None


def log_excerpt(path: Path) -> str:
    """The log's first and last ``LOG_EXCERPT`` bytes (the whole log when it is short)."""
    try:
        with open(path, "rb") as f:
            data = f.read(2 * LOG_EXCERPT + 1)
            if len(data) > 2 * LOG_EXCERPT:
                size = os.fstat(f.fileno()).st_size
                f.seek(max(size - LOG_EXCERPT, LOG_EXCERPT))
                cut = f"\n[... {size - 2 * LOG_EXCERPT} bytes of the log left out ...]\n"
                data = data[:LOG_EXCERPT] + cut.encode() + f.read()
    except OSError:
        return ""
    return data.decode(errors="replace").replace(LOG_MARK, "")
