"""Resource limits for one sandboxed bot, and their translation to `prlimit` options."""

from __future__ import annotations

from dataclasses import dataclass, fields

KiB = 1024
MiB = 1024 * KiB
GiB = 1024 * MiB


@dataclass(frozen=True)
class Limits:
    """Per-bot limits (configurable per tournament).

    Most are kernel rlimits applied to the bot's process, so they hold for every process it
    starts too (each child inherits them; CPU and file size count per process). As root on a
    host with cgroups, memory and tasks are also (tasks: instead) limited by a cgroup of the
    bot's own, which counts the whole sandbox (see docs/sandbox.md).

    memory_bytes
        The memory cgroup's limit: everything the sandbox makes the kernel hold (shared
        memory and tmpfs pages included). Also RLIMIT_DATA per process: private writable
        memory (heap, anonymous mmap, thread stacks), the only cap without a cgroup.
        RLIMIT_AS is unusable as one: an idle Node 20 maps ~730 MB of address space and a
        Python gRPC server ~780 MB while touching only ~40 MB.
    address_space_bytes
        RLIMIT_AS backstop (None: unlimited). Catches, without a cgroup, what RLIMIT_DATA
        does not count (shared anonymous mappings). WebAssembly in V8 reserves ~10 GiB per
        memory and needs >= 12 GiB here; the JVM reserves its whole heap up front (-Xmx).
    cpu_seconds
        RLIMIT_CPU soft limit (SIGXCPU); the hard limit is one second later (SIGKILL).
    cpu_cores
        The CPU quota of the whole sandbox, in cores (the cpu cgroup's bandwidth limit; its
        weight is that of one task, however many processes it starts). Needs the cgroup.
    max_processes
        Tasks (processes *and threads*) of the sandbox: the pids cgroup's ``pids.max``, or
        else RLIMIT_NPROC, which is only enforced when the bot runs under a dedicated uid or
        in its own user namespace (see docs/sandbox.md).
    file_size_bytes
        RLIMIT_FSIZE: largest file the bot may write (SIGXFSZ / EFBIG beyond it).
    open_files
        RLIMIT_NOFILE.
    tmp_bytes
        Size of the private /tmp tmpfs (bwrap mode only; RAM-backed, and charged to the
        memory cgroup where there is one). /dev/shm is a separate 8 MiB tmpfs.
    tmp_inodes
        Most files, directories and sockets in /tmp, and in /dev/shm (bwrap mode as root
        only): each costs the host ~1 KiB of kernel memory, even when empty.
    log_bytes
        Bytes of stdout+stderr kept in the bot's log file; the rest is drained and dropped.
    """

    memory_bytes: int = 1 * GiB
    address_space_bytes: int | None = 4 * GiB
    cpu_seconds: int = 600
    cpu_cores: int = 1
    max_processes: int = 128
    file_size_bytes: int = 64 * MiB
    open_files: int = 256
    tmp_bytes: int = 64 * MiB
    tmp_inodes: int = 8192
    log_bytes: int = 1 * MiB

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None and f.name == "address_space_bytes":
                continue
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ValueError(f"Limits.{f.name} must be a positive int, got {value!r}")

    def prlimit_args(self, *, nproc: bool = True, data: bool = True) -> list[str]:
        """`prlimit` options (util-linux) setting these limits, soft:hard."""
        args = [
            *([f"--data={self.memory_bytes}:{self.memory_bytes}"] if data else []),
            f"--cpu={self.cpu_seconds}:{self.cpu_seconds + 1}",
            f"--fsize={self.file_size_bytes}:{self.file_size_bytes}",
            f"--nofile={self.open_files}:{self.open_files}",
            "--core=0:0",
        ]
        if self.address_space_bytes is not None:
            asb = self.address_space_bytes
            args.append(f"--as={asb}:{asb}")
        if nproc:
            args.append(f"--nproc={self.max_processes}:{self.max_processes}")
        return args


DEFAULT_LIMITS = Limits()
