"""Start an untrusted command in a sandbox and guarantee that it is cleaned up.

This package knows nothing about gRPC or the game. It starts ``command`` with the bot's own
directory as working directory, captures stdout+stderr to a capped log file, and kills and
reaps the whole process tree on :meth:`SandboxedProcess.stop`.

Two modes (see docs/sandbox.md for exactly what each enforces):

``bwrap``
    bubblewrap: new pid/net/ipc/uts namespaces, a minimal read-only view of the runtime,
    the bot directory read-only at ``/bot``, a private size-capped ``/tmp`` that also
    holds the bot's socket; plus the rlimits below.
``rlimits``
    fallback when bwrap is missing or does not work: rlimits (and, as root, a dedicated
    uid) only. Logged loudly once per process; refused when ``require_sandbox`` is set.

Typical use::

    policy = SandboxPolicy.from_env()
    with launch(command, bot_dir, log_path=log_path, address_env="CALLBREAK_ADDRESS",
                address_arg=True, policy=policy) as proc:
        while not proc.socket_ready(): ...          # (and proc.alive(), a deadline)
        channel = grpc.insecure_channel(proc.connect_address())
        ...

Modules, each importing only those above it: ``policy`` (policy, paths, errors),
``procfs`` (/proc scans, signals), ``endpoint`` (reaching the socket safely), ``cgroups``
(a memory and pids group per bot), ``seccomp`` (no nested user namespaces), ``uids``
(per-bot uid leases as root), ``request`` (a checked launch request), ``bwrap``
(environment, bwrap's command line), ``logpump`` (capped log capture), ``process``
(:class:`SandboxedProcess`), ``spawner`` (the forking thread), ``start`` (starting a
request), ``detect`` (mode probe and fallback warning), ``launcher`` (the entry point).
Everything logs to the logger named after this package.
"""

# Private helpers that tests and benchmarks reach through the package.
from .bwrap import _runtime_paths as _runtime_paths
from .detect import _bwrap_problem as _bwrap_problem
from .detect import _reset_detection_cache as _reset_detection_cache
from .detect import resolve_mode
from .launcher import launch
from .logpump import LOG_MARK
from .policy import (
    BOT_DIR_INSIDE,
    DEFAULT_SOCKET_NAME,
    TMP_INSIDE,
    Mode,
    SandboxError,
    SandboxPolicy,
    SandboxUnavailable,
    UnsafeSocket,
)
from .process import ResourceUsage, SandboxedProcess
from .spawner import die_with
from .uids import sweep_leftovers

__all__ = [
    "BOT_DIR_INSIDE",
    "DEFAULT_SOCKET_NAME",
    "LOG_MARK",
    "TMP_INSIDE",
    "Mode",
    "ResourceUsage",
    "SandboxError",
    "SandboxPolicy",
    "SandboxUnavailable",
    "SandboxedProcess",
    "UnsafeSocket",
    "die_with",
    "launch",
    "resolve_mode",
    "sweep_leftovers",
]
