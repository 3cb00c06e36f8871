"""The bot's environment and bwrap's command line: namespaces, filesystem view, privileges."""

from __future__ import annotations

import os
import site
import sys
from collections.abc import Mapping
from pathlib import Path, PurePosixPath

from arena.toolchains import play_paths

from .policy import BOT_DIR_INSIDE, SandboxError, SandboxPolicy
from .procview import proc_args
from .request import _LaunchRequest
from .view import view_for

# Host paths bound read-only into the bwrap sandbox (when they exist), besides /usr, the
# top-level /bin, /lib... entries and the Python runtime.
_ETC_PATHS = (
    "/etc/alternatives",
    "/etc/ssl",
    "/etc/ca-certificates",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/localtime",
)
_TOP_LEVEL_RUNTIME = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
_SHM_BYTES = 8 * 1024 * 1024  # /dev/shm (POSIX semaphores, e.g. multiprocessing)
# Run before the privilege drop, with CAP_SYS_ADMIN: bwrap's --tmpfs cannot cap inodes.
# --options-mode ignore: libmount would merge in the options mountinfo shows; nosuid and
# nodev are spelled out instead, so the remount cannot drop them.
_REMOUNT = (
    "for d in /tmp /dev/shm; do "
    '"$0" --options-mode ignore -o "remount,nosuid,nodev,nr_inodes=$1" "$d" || exit 125; '
    'done; shift; exec "$@"'
)


def _runtime_paths(policy: SandboxPolicy) -> list[str]:
    """Host paths bound read-only at the same place: Python runtime, site dirs, `arena`."""
    import arena

    candidates = [sys.base_prefix, sys.prefix, *site.getsitepackages()]
    candidates += [p for p in arena.__path__ if os.path.isdir(p)]
    candidates += list(policy.extra_ro_paths)
    covered = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc"]
    result: list[str] = []
    for path in sorted({os.path.realpath(p) for p in candidates if os.path.exists(p)}):
        if any(path == c or path.startswith(c.rstrip("/") + "/") for c in covered + result):
            continue
        if path == "/":
            raise SandboxError("refusing to bind / into the sandbox")
        result.append(path)
    return result


def _bot_env(env_extra: Mapping[str, str], home: str) -> dict[str, str]:
    python_bin = os.path.dirname(sys.executable)
    env = {
        "PATH": f"{python_bin}:/usr/local/bin:/usr/bin:/bin",
        "HOME": home,
        "TMPDIR": home,
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    for key, value in env_extra.items():
        if not key or "=" in key or "\0" in key or "\0" in value:
            raise ValueError(f"bad environment entry {key!r}")
        env[key] = value
    return env


def _bwrap_argv(
    request: _LaunchRequest, bot_files: Path, inner: list[str], env_extra: Mapping[str, str]
) -> tuple[list[str], list[str]]:
    """bwrap's options, and the command it runs in the sandbox (``inner`` behind the inode
    cap); ``bot_files`` is what is bound at /bot (the launch's copy of the bot's files)."""
    args = _namespace_args(request)
    args += _filesystem_args(request, bot_files)
    args += ["--chdir", str(request.inside_cwd), "--clearenv"]
    for key, value in _bot_env(env_extra, "/tmp").items():
        args += ["--setenv", key, value]
    if not request.remounts_tmp:
        return args, inner
    # What mount needs to cap the inodes, and setpriv to switch to the bot's uid and to
    # drop them all again (SETPCAP, for the bounding set).
    for cap in ("CAP_SYS_ADMIN", "CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP"):
        args += ["--cap-add", cap]
    return args, _inode_cap(request, inner)


def _inode_cap(request: _LaunchRequest, inner: list[str]) -> list[str]:
    """``inner`` behind a remount of /tmp and /dev/shm with at most ``limits.tmp_inodes``
    inodes each (a million empty files would otherwise cost the host ~1.2 GB of kernel
    memory)."""
    tools = request.tools
    inodes = str(request.limits.tmp_inodes)
    return [tools["sh"], "-c", _REMOUNT, tools["mount"], inodes, *inner]


def _namespace_args(request: _LaunchRequest) -> list[str]:
    """Fresh pid, net, ipc and uts namespaces, tied to the platform's life; unprivileged, a
    user namespace too, in which the bot may create no other (as root: seccomp.py)."""
    args = [
        "--unshare-pid",
        "--unshare-net",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--hostname",
        "arena-bot",
        "--die-with-parent",
        "--new-session",
    ]
    if not request.as_root:
        args += ["--unshare-user", "--disable-userns"]
    return args


def _filesystem_args(request: _LaunchRequest, bot_files: Path) -> list[str]:
    """The bot's filesystem: private /dev, /proc and /tmp (where its socket goes), the runtime
    read-only and its own directory read-only at /bot. Nothing of the host is writable but
    a build's own folder (``request.build``: /bot, with all of /usr for the compilers)."""
    # The private /dev, /proc and /tmp first: a runtime path under /tmp (a checkout or a venv
    # there) is then bound on top of the tmpfs instead of being hidden by it.
    args = ["--dev", "/dev", "--proc", "/proc"]
    if request.policy.close_channels:  # only the bot's own processes and constants
        args += proc_args(request.policy, request.limits.memory_bytes)
    args += ["--perms", "1777", "--size", str(request.limits.tmp_bytes), "--tmpfs", "/tmp"]
    args += ["--perms", "1777", "--size", str(_SHM_BYTES), "--tmpfs", "/dev/shm"]
    if request.policy.close_channels and not request.build:  # only the runtimes (view.py)
        args += view_for(request.policy).bwrap_args()
    else:  # the sandbox as it was: all of /usr and the Python prefix from the host
        made = {"/", "/dev", "/dev/shm", "/proc", "/tmp"}
        args += _system_dir_args()
        host_paths = [p for p in _ETC_PATHS if os.path.exists(p)]
        if request.build:  # the toolchains' files outside /usr (a JDK's /etc/java-17-...)
            host_paths += [p for p in play_paths() if not p.startswith(("/usr/", "/lib"))]
        for path in host_paths + _runtime_paths(request.policy):
            args += [*_parent_dir_args(path, made), "--ro-bind", path, path]
    args += ["--bind" if request.build else "--ro-bind", str(bot_files), str(BOT_DIR_INSIDE)]
    # bwrap's own / and /dev are tmpfs owned by the bot's uid when there is a user
    # namespace: freeze them (non-recursive, so the mounts above keep their modes).
    args += ["--remount-ro", "/dev", "--remount-ro", "/"]
    return args


def _system_dir_args() -> list[str]:
    """/usr read-only, and the top-level /bin, /lib... as the host has them (often symlinks)."""
    args = ["--ro-bind", "/usr", "/usr"]
    for top in _TOP_LEVEL_RUNTIME:
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    return args


def _parent_dir_args(dest: str, made: set[str]) -> list[str]:
    """Create the missing parents of ``dest`` in the sandbox (``made``: those that exist)."""
    args: list[str] = []
    for parent in reversed(PurePosixPath(dest).parents):
        if str(parent) not in made:
            made.add(str(parent))
            args += ["--perms", "0755", "--dir", str(parent)]
    return args
