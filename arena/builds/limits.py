"""A build's limits, from the operator's settings (``ARENA_BUILD_*``)."""

from __future__ import annotations

from dataclasses import dataclass

from arena.config import Settings
from arena.sandbox.limits import GiB, Limits, MiB

_BUILD_TASKS = 512  # compilers run a process per file, the JVM and Go many threads each
_BUILD_TMP = 1 * GiB  # /tmp: compilers' temporary files, Go's build cache (and memory: tmpfs)
_BUILD_TMP_INODES = 200_000


@dataclass(frozen=True)
class BuildLimits:
    """``seconds``: wall time of the build (and CPU time of each of its processes);
    ``memory_bytes``: everything the build's sandbox holds (its /tmp included);
    ``output_bytes``: the bot's folder, during the build and after (its artifact)."""

    seconds: int = 600
    memory_bytes: int = 1536 * MiB
    output_bytes: int = 100 * MiB

    @classmethod
    def from_settings(cls, settings: Settings) -> BuildLimits:
        return cls(
            seconds=settings.build_seconds,
            memory_bytes=settings.build_memory_mb * MiB,
            output_bytes=settings.build_output_mb * MiB,
        )

    def sandbox(self) -> Limits:
        """The sandbox's limits for the build: no address-space cap (Go and the JVM reserve
        gigabytes they never touch), files up to the output cap, a log of 4 MiB."""
        return Limits(
            memory_bytes=self.memory_bytes,
            address_space_bytes=None,
            cpu_seconds=self.seconds,
            cpu_cores=1,  # a core of a two-core host stays with the seats playing
            max_processes=_BUILD_TASKS,
            file_size_bytes=self.output_bytes,
            open_files=4096,
            tmp_bytes=min(_BUILD_TMP, self.memory_bytes),
            tmp_inodes=_BUILD_TMP_INODES,
            log_bytes=4 * MiB,
        )

    def describe(self) -> str:
        """The limits as docs and messages state them."""
        return (
            f"{self.seconds} s, {self.memory_bytes // MiB} MiB of memory, "
            f"{self.output_bytes // MiB} MiB of files"
        )
