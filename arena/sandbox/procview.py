"""The bot's /proc: its own processes, and nothing of the host that a bot can move.

bwrap mounts a procfs for the sandbox's pid namespace, but most of what procfs shows at its
top level is the whole host's: /proc/vmstat and /proc/zoneinfo count events that never
reset (a bot can set ``pglazyfree`` with ``MADV_FREE`` in one game and the bot of the next
game reads it back), /proc/stat, /proc/loadavg, /proc/meminfo and /proc/pressure follow
everyone's load, /proc/sys/fs counts the host's dentries and open files. So the sandbox's
/proc is an allowlist: the pid directories and the entries in ``KEPT`` as the kernel shows
them, the entries in ``SYNTHETIC`` replaced by files the platform writes (constant for a
platform process and a memory limit), and every other top-level entry - including any a
newer kernel adds - covered by an empty file or directory. Each cover is a read-only bind
mount of a file in a directory this process writes once (see :func:`_view_dir`)."""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import tempfile
from pathlib import Path

from .copies import _PREFIX, copy_dirs
from .policy import SandboxPolicy

# Top-level /proc entries shown as the kernel has them, and why each is safe.
KEPT = {
    "self": "symlink to the reader's own pid directory (the sandbox's pid namespace)",
    "thread-self": "symlink to the reader's own thread directory",
    "mounts": "symlink to self/mounts: the sandbox's own mount namespace",
    "net": "symlink to self/net: the sandbox's own network namespace",
    "version": "constant: the kernel's version string, as uname(2) gives it",
    "filesystems": "constant: the filesystem types the kernel knows (libmount reads it)",
}
# Top-level entries replaced by what the platform writes, and why.
SYNTHETIC = {
    "cpuinfo": "the host's as this process first read it, frozen ('cpu MHz' moves)",
    "meminfo": "the bot's memory limit as total, free and available memory; the rest 0",
    "stat": "one zeroed line per CPU (glibc counts the CPUs there when /sys is absent)",
    "loadavg": "constant: no load",
    "sys": "the few settings runtimes read (below), as the host had them",
}
# /proc/sys files copied into the synthetic /proc/sys: settings only root can change.
SYSCTLS = {
    "kernel/cap_last_cap": "setpriv and libcap size the capability sets with it",
    "kernel/ngroups_max": "sysconf(_SC_NGROUPS_MAX)",
    "kernel/osrelease": "the same as uname(2)",
    "kernel/ostype": "the same as uname(2)",
    "kernel/pid_max": "runtimes size pid tables with it",
    "kernel/threads-max": "runtimes size thread pools with it",
    "vm/overcommit_memory": "glibc's malloc and V8 read it",
    "vm/max_map_count": "allocators (V8, the JVM) size their mappings with it",
    "fs/nr_open": "the ceiling of RLIMIT_NOFILE",
    "fs/pipe-max-size": "fcntl(F_SETPIPE_SZ) users read it",
}
_MEMINFO_ZERO = (
    *("Buffers", "Cached", "SwapCached", "Active", "Inactive", "SwapTotal", "SwapFree"),
    *("Dirty", "Writeback", "AnonPages", "Mapped", "Shmem", "Slab", "KernelStack"),
    *("PageTables", "CommitLimit", "Committed_AS", "HugePages_Total", "HugePages_Free"),
)
_LOADAVG = "0.00 0.00 0.00 1/1 1\n"
_EMPTY_FILE, _EMPTY_DIR = ".empty", ".empty-dir"

_views: dict[tuple[int, int, Path], Path] = {}  # (pid, memory bytes, where) -> the view
_host_once: dict[str, str] = {}  # what the host showed when first read (cpuinfo, sysctls)


def proc_args(policy: SandboxPolicy, memory_bytes: int) -> list[str]:
    """bwrap options, after ``--proc /proc``, that cover every top-level /proc entry but
    the pid directories and ``KEPT``: with the synthetic files, or empty ones."""
    view = _view_dir(policy, memory_bytes)
    args: list[str] = []
    for name in sorted(os.listdir("/proc")):  # the same kernel as the sandbox's procfs
        if name.isdigit() or name in KEPT:
            continue
        host = f"/proc/{name}"
        if name in SYNTHETIC:
            source = view / name
        elif os.path.islink(host):
            continue  # the kernel's four all point into the reader's own pid directory
        else:
            source = view / (_EMPTY_DIR if os.path.isdir(host) else _EMPTY_FILE)
        args += ["--ro-bind", str(source), host]
    return args


def _view_dir(policy: SandboxPolicy, memory_bytes: int) -> Path:
    """The directory of covers for one memory limit: written once per platform process,
    where the bots' private copies go (so the copies' sweep removes a dead process's),
    read-only to everyone, removed when the process exits."""
    where = copy_dirs(policy)[0]
    key = (os.getpid(), memory_bytes, where)
    found = _views.get(key)
    if found is not None and found.is_dir():
        return found
    path = Path(tempfile.mkdtemp(prefix=f"{_PREFIX}{key[0]}-procview-", dir=where))
    try:
        _write_view(path, memory_bytes)
    except BaseException:
        shutil.rmtree(path, ignore_errors=True)
        raise
    path.chmod(0o755)
    if not any(pid == key[0] for pid, _, _ in _views):
        atexit.register(_remove_views, key[0])
    _views[key] = path
    return path


def _write_view(path: Path, memory_bytes: int) -> None:
    files = {
        _EMPTY_FILE: "",
        "cpuinfo": _host("/proc/cpuinfo"),
        "meminfo": meminfo(memory_bytes),
        "stat": stat(os.cpu_count() or 1),
        "loadavg": _LOADAVG,
    }
    for sysctl in SYSCTLS:
        with contextlib.suppress(OSError):
            files[f"sys/{sysctl}"] = _host(f"/proc/sys/{sysctl}")
    (path / _EMPTY_DIR).mkdir()
    for name, text in files.items():
        target = path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
        target.chmod(0o444)
    for directory in [path / _EMPTY_DIR, *(p for p in path.rglob("*") if p.is_dir())]:
        directory.chmod(0o555)


def _host(path: str) -> str:
    if path not in _host_once:
        _host_once[path] = Path(path).read_text()
    return _host_once[path]


def meminfo(memory_bytes: int) -> str:
    """A /proc/meminfo whose machine is the bot's memory limit, all of it free (libuv's
    uv_get_total_memory reads it: Node sizes its heap from MemTotal)."""
    kib = memory_bytes // 1024
    values = dict.fromkeys(("MemTotal", "MemFree", "MemAvailable"), kib)
    values |= dict.fromkeys(_MEMINFO_ZERO, 0)
    lines = [f"{name + ':':<16}{value:>9} kB" for name, value in values.items()]
    return "\n".join(lines) + "\n"


def stat(cpus: int) -> str:
    """A /proc/stat of ``cpus`` idle CPUs that never ran (glibc's get_nprocs counts its
    cpuN lines when /sys/devices/system/cpu/online is missing, as in the sandbox)."""
    zero = " 0" * 10
    lines = [f"cpu {zero}", *(f"cpu{i}{zero}" for i in range(cpus))]
    lines += ["intr 0", "ctxt 0", "btime 0", "processes 0", "procs_running 1"]
    lines += ["procs_blocked 0", "softirq 0"]
    return "\n".join(lines) + "\n"


def _remove_views(pid: int) -> None:
    if os.getpid() != pid:
        return  # a forked child: the views are its parent's
    for (owner, _, _), path in list(_views.items()):
        if owner == pid:
            shutil.rmtree(path, ignore_errors=True)
