"""The files a bwrap sandbox sees of the host: its runtimes and nothing else, as one copy on
a tmpfs shared by every sandbox.

Every file two sandboxes can both read is a channel between seats playing at once: one
touches chosen pages of a big file, the other times its first touch of each (a page read
from disk costs ~100 times one in the cache). Binding all of /usr and the whole Python
prefix made gigabytes of such pages visible. The view therefore holds only what the
runtimes need (the platform's Python with its stdlib and the distributions offered to
bots, Node, what the installed toolchains' bots load at play, the sandbox's own tools,
the shared libraries these load), and it is a
copy on a tmpfs: without swap, tmpfs data, directories, inodes and dentries are memory and
never leave it, so every page a bot can touch is resident before the first bot starts and
first-touch timing says nothing. One view per content and user serves every platform
process on the host; each holds a shared flock on it while it runs, and the sweep removes
views nobody holds (see docs/sandbox.md, "What the bwrap sandbox sees")."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import importlib.metadata as metadata
import logging
import os
import re
import shutil
import site
import stat
import subprocess
import sys
import sysconfig
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from arena.toolchains import PLAY_SKIP, PYTHON_PACKAGES, play_paths

from .copies import _alive, _copy_file, copy_dirs
from .policy import SandboxError, SandboxPolicy

logger = logging.getLogger(__package__)

# The platform's own distribution: its files (an editable install's finder, or the installed
# packages) are how a bot's Python finds `arena`; its requirements are not all for bots.
_PLATFORM_DIST = "callbreak-arena"
# Parts of the stdlib no bot runs (tests, IDE, Tk, pip's bootstrap, the static libpython).
_STDLIB_SKIP = {"site-packages", "dist-packages", "test", "idlelib", "tkinter", "turtledemo"}
_STDLIB_SKIP |= {"ensurepip"}
_SKIP_FILES = ("_tkinter.",)  # Tk's module (lib-dynload): it would bring in X11
_ETC: tuple[str, ...] = ("/etc/ssl", "/etc/ca-certificates", "/etc/ld.so.cache")
_ETC += ("/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime")
_TOOLS = ("sh", "mount", "setpriv", "prlimit", "env", "true")  # true: the probe run
_TOOL_PATH = "/usr/bin:/bin:/usr/sbin:/sbin"
_TOP_LEVEL = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
_NODE_DIRS = ("/usr/share/nodejs", "/usr/lib/nodejs")
_LOCALES = ("/usr/lib/locale/C.utf8", "/usr/lib/locale/C.UTF-8")
_INSIDE_MADE = ("tmp",)  # made by bwrap before the view: the view's entries go inside
_PREFIX = "arena-view-"
_BUILD = "arena-view-build-"
_TRASH = "arena-view-trash-"
_TMPFS_MAGIC = 0x01021994
_FORMAT = b"view 2\n"  # how a view is laid out: part of its key
_LDD_LINE = re.compile(r"(?:=>\s*)?(/\S+)\s+\(0x[0-9a-f]+\)")


@dataclass(frozen=True)
class View:
    """A built view: ``root`` holds the host's layout (``root/usr/...``); ``files`` are the
    host paths of its regular files (what a bot can read, besides its own package)."""

    root: Path
    key: str
    files: tuple[str, ...]
    on_tmpfs: bool

    def bwrap_args(self) -> list[str]:
        """bwrap options putting the view in place: each top-level entry bound read-only (or
        its symlink recreated); inside /tmp, which bwrap made a tmpfs, entry by entry."""
        args: list[str] = []
        for top in sorted(os.listdir(self.root)):
            if top in _INSIDE_MADE:
                for child in sorted(os.listdir(self.root / top)):
                    args += _place(self.root / top / child, f"/{top}/{child}")
            else:
                args += _place(self.root / top, f"/{top}")
        return args


def _place(source: Path, dest: str) -> list[str]:
    if source.is_symlink():
        return ["--symlink", os.readlink(source), dest]
    return ["--ro-bind", str(source), dest]


# --------------------------------------------------------------------------- the closure


class _Closure:
    """Host paths, each with its symlink target (None: a regular file or a directory)."""

    def __init__(self) -> None:
        self.entries: dict[str, str | None] = {}
        self.dirs: set[str] = set()  # directories whose contents were walked (host modes)

    def add(self, path: str, depth: int = 0) -> str | None:
        """``path`` and every symlink on the way to it (recreated as links); returns its
        real path, or None when it is missing or not readable by others."""
        if depth > 40:
            return None
        current = "/"
        parts = Path(os.path.normpath(path)).parts[1:]
        for i, part in enumerate(parts):
            step = os.path.join(current, part)
            if os.path.islink(step):
                target = os.readlink(step)
                self.entries[step] = target
                rest = os.path.join(os.path.dirname(step), target, *parts[i + 1 :])
                return self.add(os.path.normpath(rest), depth + 1)
            current = step
        try:
            info = os.stat(current)
        except OSError:
            return None
        if not _readable_by_others(info):
            return None
        if stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode):
            self.entries.setdefault(current, None)
            return current
        return None

    def tree(self, path: str, skip: set[str] | frozenset[str] = frozenset()) -> None:
        """``path`` and everything under it that others may read (links kept as links)."""
        real = self.add(path)
        if real is None or not os.path.isdir(real):
            return
        self.dirs.add(real)
        for top, dirs, files in os.walk(real):
            kept = []
            for name in dirs:
                full = os.path.join(top, name)
                if name in skip or (name.startswith("config-") and top == real):
                    continue
                if os.path.islink(full):
                    self.entries[full] = os.readlink(full)
                elif _readable_by_others(os.lstat(full)):
                    self.entries[full] = None
                    self.dirs.add(full)
                    kept.append(name)
            dirs[:] = kept
            for name in files:
                full = os.path.join(top, name)
                info = os.lstat(full)
                if stat.S_ISLNK(info.st_mode):
                    self.entries[full] = os.readlink(full)
                elif name.startswith(_SKIP_FILES):
                    continue
                elif stat.S_ISREG(info.st_mode) and _readable_by_others(info):
                    self.entries[full] = None


def _readable_by_others(info: os.stat_result) -> bool:
    """What a bot under its own uid could read on the host: nothing else is copied."""
    if stat.S_ISDIR(info.st_mode):
        return info.st_mode & 0o005 == 0o005
    return bool(info.st_mode & 0o004)


def _python(closure: _Closure) -> None:
    """The interpreter, its stdlib and the distributions bots are offered."""
    bin_dir = os.path.dirname(sys.executable)
    for name in ("python", "python3", f"python{sys.version_info[0]}.{sys.version_info[1]}"):
        closure.add(os.path.join(bin_dir, name))
    closure.add(sys.executable)
    closure.add(getattr(sys, "_base_executable", sys.executable))
    if sys.prefix != sys.base_prefix:
        closure.add(os.path.join(sys.prefix, "pyvenv.cfg"))
    paths = sysconfig.get_paths()
    for key in ("stdlib", "platstdlib"):
        closure.tree(paths[key], _STDLIB_SKIP)
    tag = sys.implementation.cache_tag
    for dist in _distributions():
        for file in dist.files or []:
            if file.parts[:1] == ("..",):
                continue  # console scripts and data outside site-packages
            host = str(file.locate())
            closure.add(host)
            if host.endswith(".py"):  # pip does not always list the compiled files
                head, name = os.path.split(host)
                closure.add(os.path.join(head, "__pycache__", f"{name[:-3]}.{tag}.pyc"))
    import arena

    for path in arena.__path__:
        closure.tree(path)


def _distributions() -> list[metadata.Distribution]:
    """The distributions offered to bots (``PYTHON_PACKAGES``) and their requirements (with
    their extras), recursively, and the platform's own without its requirements, as
    installed in the site directories (not a checkout's egg-info: that lists the checkout's
    files)."""
    sites = [*site.getsitepackages(), site.getusersitepackages()]
    sites += [sysconfig.get_paths()[k] for k in ("purelib", "platlib")]

    def find(name: str) -> metadata.Distribution:
        for dist in metadata.distributions(name=name, path=sites):
            return dist
        raise metadata.PackageNotFoundError(name)

    found: dict[str, tuple[metadata.Distribution, frozenset[str]]] = {}
    with contextlib.suppress(metadata.PackageNotFoundError):
        found[_PLATFORM_DIST] = (find(_PLATFORM_DIST), frozenset())
    todo: list[tuple[metadata.Distribution, frozenset[str]]] = []
    for name in PYTHON_PACKAGES:
        with contextlib.suppress(metadata.PackageNotFoundError):
            todo.append((find(name), frozenset()))
    while todo:
        dist, extras = todo.pop()
        key = _norm(dist.metadata["Name"])
        if key in found and extras <= found[key][1]:
            continue
        extras = extras | (found[key][1] if key in found else frozenset())
        found[key] = (dist, extras)
        for requirement in dist.requires or []:
            parsed = _requirement(requirement, extras)
            if parsed is None:
                continue
            with contextlib.suppress(metadata.PackageNotFoundError):
                todo.append((find(parsed[0]), parsed[1]))
    return [dist for dist, _ in found.values()]


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requirement(text: str, extras: frozenset[str]) -> tuple[str, frozenset[str]] | None:
    """(name, extras) of a requirement, None when only an extra we were not asked for needs
    it. Other markers are not evaluated: a distribution they exclude is just not installed
    (and one that is installed costs a few files)."""
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[([^\]]*)\])?[^;]*(?:;(.*))?$", text)
    if match is None:
        return None
    marker = match[3] or ""
    wanted = re.findall(r"extra\s*==\s*['\"]([^'\"]+)['\"]", marker)
    if wanted and not {_norm(e) for e in wanted} & {_norm(e) for e in extras}:
        return None
    sub = frozenset(e.strip() for e in (match[2] or "").split(",") if e.strip())
    return match[1], sub


def _node(closure: _Closure) -> None:
    """Node and, on Debian, its bundled modules."""
    node = shutil.which("node", path="/usr/local/bin:/usr/bin:/bin")
    if node is not None:
        closure.add(node)
    triplet = sysconfig.get_config_var("MULTIARCH") or ""
    for path in (*_NODE_DIRS, f"/usr/lib/{triplet}/nodejs" if triplet else ""):
        if path and node is not None and os.path.isdir(path):
            closure.tree(path)


def _system(closure: _Closure, policy: SandboxPolicy) -> None:
    """The sandbox's tools, /etc bits, the C.UTF-8 locale and ``extra_ro_paths``."""
    for top in _TOP_LEVEL:  # merged /usr: /bin -> usr/bin and the like
        if os.path.islink(top):
            closure.entries[top] = os.readlink(top)
    for name in _TOOLS:
        tool = shutil.which(name, path=_TOOL_PATH)
        if tool is not None:
            closure.add(tool)
    for path in _ETC:
        closure.tree(path)
    for link, target in list(closure.entries.items()):  # /etc/ssl/certs -> /usr/share/...
        if target is not None and link.startswith("/etc/"):
            closure.add(os.path.join(os.path.dirname(link), target))
    for path in _LOCALES:
        closure.tree(path)
    for path in policy.extra_ro_paths:
        closure.tree(os.path.abspath(path))


def _toolchains(closure: _Closure) -> None:
    """What the bots of each installed toolchain need at play (``arena.toolchains``): a JVM
    and its jars, gRPC C++'s libraries (``_libraries`` adds what they load)."""
    for path in play_paths():
        closure.tree(path, PLAY_SKIP)


def _libraries(closure: _Closure) -> None:
    """The shared libraries (and ld.so) every ELF file of the view loads, as ldd lists
    them, and libgcc_s, which glibc loads at run time (thread cancellation, unwinding)."""
    elves = [p for p, t in closure.entries.items() if t is None and _is_elf(p)]
    libs: set[str] = set()
    for start in range(0, len(elves), 64):
        libs |= _ldd(elves[start : start + 64])
    for lib in sorted(libs):
        closure.add(lib)
    for lib in [lib for lib in libs if os.path.basename(lib) == "libc.so.6"]:
        closure.add(os.path.join(os.path.dirname(lib), "libgcc_s.so.1"))


def _is_elf(path: str) -> bool:
    name = os.path.basename(path)
    try:
        if ".so" not in name and not os.stat(path).st_mode & 0o111:
            return False
        with open(path, "rb") as f:
            return f.read(4) == b"\x7fELF"
    except OSError:
        return False


def _ldd(paths: list[str]) -> set[str]:
    """Absolute paths of what ``paths`` load (ldd prints the whole transitive closure)."""
    ldd = shutil.which("ldd", path=_TOOL_PATH)
    if ldd is None:
        raise SandboxError("`ldd` (libc-bin) not found: cannot work out the sandbox's view")
    done = subprocess.run(
        [ldd, *paths], capture_output=True, text=True, check=False, env={"LC_ALL": "C"}
    )
    return set(_LDD_LINE.findall(done.stdout))


def _closure(policy: SandboxPolicy) -> _Closure:
    closure = _Closure()
    _python(closure)
    _node(closure)
    _system(closure, policy)
    _toolchains(closure)
    _libraries(closure)
    return closure


# --------------------------------------------------------------------------- the copy


_lock = threading.Lock()
_views: dict[tuple[tuple[str, ...], int], View] = {}
_held: list[int] = []  # the flocked view fds of this process (kept open until exit)


def view_for(policy: SandboxPolicy) -> View:
    """The view for ``policy`` (its ``extra_ro_paths``), built or found once per process."""
    key = (tuple(policy.extra_ro_paths), os.geteuid())
    with _lock:
        if key not in _views or not _views[key].root.is_dir():  # removed under us: again
            _views[key] = _open_view(policy)
        return _views[key]


def _manifest(closure: _Closure) -> bytes:
    """What the view holds, with the size and mtime of every file: its content key."""
    lines = []
    for path, target in sorted(closure.entries.items()):
        info = os.lstat(path)
        lines.append(f"{path}\0{target}\0{info.st_mode:o}\0{info.st_size}\0{info.st_mtime_ns}")
    return "\n".join(lines).encode()


def _where(policy: SandboxPolicy) -> tuple[Path, bool]:
    """A directory for views: the first tmpfs of ``copy_dirs`` that may hold programs, else
    the first usable one (then the view's pages are a disk file's: logged)."""
    usable = [d for d in copy_dirs(policy) if os.access(d, os.W_OK | os.X_OK)]
    for where in usable:
        if _is_tmpfs(where) and not os.statvfs(where).f_flag & os.ST_NOEXEC:
            return where, True
    if not usable:
        raise SandboxError("no directory to build the sandbox's view in")
    logger.warning(
        "the sandbox's view is not on a tmpfs (%s): its pages can be evicted, and their"
        " first-touch timing is then a channel between bots",
        usable[0],
    )
    return usable[0], False


def _is_tmpfs(path: Path) -> bool:
    """statfs's f_type, read through stat -f (Python has no statfs)."""
    done = subprocess.run(
        ["stat", "-f", "-c", "%t", str(path)], capture_output=True, text=True, check=False
    )
    return done.returncode == 0 and int(done.stdout.strip() or "0", 16) == _TMPFS_MAGIC


def _open_view(policy: SandboxPolicy) -> View:
    closure = _closure(policy)
    key = hashlib.sha256(_FORMAT + _manifest(closure)).hexdigest()[:20]
    where, on_tmpfs = _where(policy)
    files = tuple(sorted(p for p, t in closure.entries.items() if t is None and os.path.isfile(p)))
    for _attempt in range(3):
        root = _find(where, key) or _build(where, key, closure)
        fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        fcntl.flock(fd, fcntl.LOCK_SH)  # a sweep that got here first removes it, then us
        with contextlib.suppress(OSError):
            if os.stat(root).st_ino == os.fstat(fd).st_ino:
                _held.append(fd)
                logger.info("sandbox view %s: %d files", root, len(files))
                return View(root, key, files, on_tmpfs)
        os.close(fd)
    raise SandboxError(f"the sandbox's view in {where} kept disappearing")


def _find(where: Path, key: str) -> Path | None:
    """A complete view of ``key`` made by our user (and by nobody else: never trusted)."""
    for path in sorted(where.glob(f"{_PREFIX}{key}-*")):
        with contextlib.suppress(OSError):
            info = os.lstat(path)
            ours = stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid()
            if ours and not info.st_mode & 0o022:
                return path
    return None


def _build(where: Path, key: str, closure: _Closure) -> Path:
    """Copy the closure into a fresh directory, then give it its final name (a view is
    complete once it has one)."""
    build = Path(tempfile.mkdtemp(prefix=f"{_BUILD}{os.getpid()}-", dir=where))
    try:
        _copy(closure, build)
        final = Path(tempfile.mkdtemp(prefix=f"{_PREFIX}{key}-", dir=where))
        os.rmdir(final)
        os.rename(build, final)
    except OSError as exc:
        shutil.rmtree(build, ignore_errors=True)
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            raise SandboxError(f"no room for the sandbox's view in {where}: {exc}") from exc
        raise
    return final


def _copy(closure: _Closure, build: Path) -> None:
    """Every entry at its host path under ``build``; directories get their host mode last
    (parents that are only on the way to something get 0755), files keep theirs."""
    os.chmod(build, 0o755)
    modes: dict[str, int] = {}
    for path, target in sorted(closure.entries.items()):
        dest = str(build) + path
        os.makedirs(os.path.dirname(dest), mode=0o755, exist_ok=True)
        if target is not None:
            os.symlink(target, dest)
        elif os.path.isdir(path):
            os.makedirs(dest, mode=0o755, exist_ok=True)
            if path in closure.dirs:
                modes[dest] = stat.S_IMODE(os.stat(path).st_mode) & ~0o022
        else:
            _copy_file(path, dest)
            info = os.stat(path)
            os.chmod(dest, stat.S_IMODE(info.st_mode) & ~0o7022)
            # The mtime too: a .pyc records its source's, and a stale one is compiled anew
            # at every start (nothing can write the fresh one back).
            os.utime(dest, ns=(info.st_atime_ns, info.st_mtime_ns))
    for dest in sorted(modes, reverse=True):
        os.chmod(dest, modes[dest])


def sweep_views(policy: SandboxPolicy) -> int:
    """Remove our user's views that no platform process holds, but the newest (most likely
    the next one's), and the builds of dead processes; returns how many."""
    removed = 0
    unheld: list[tuple[float, Path]] = []
    mine = {v.root for v in _views.values()}
    for where in copy_dirs(policy):
        for path in where.glob(f"{_PREFIX}*"):
            with contextlib.suppress(OSError):
                info = os.lstat(path)
                if info.st_uid != os.geteuid() or path in mine:
                    continue
                if path.name.startswith((_BUILD, _TRASH)):
                    pid = path.name.split("-")[3]
                    if not (pid.isdigit() and _alive(int(pid))):
                        shutil.rmtree(path, ignore_errors=True)
                        removed += 1
                elif _unheld(path):
                    unheld.append((info.st_ctime, path))
    for _ctime, path in sorted(unheld)[:-1]:
        removed += _remove_unheld(path)
    return removed


def _unheld(path: Path) -> bool:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    finally:
        os.close(fd)
    return True


def _remove_unheld(path: Path) -> int:
    """Rename (so nobody finds it any more) and remove ``path`` if nobody holds it."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return 0  # taken meanwhile
        trash = path.with_name(f"{_TRASH}{os.getpid()}-{path.name}")
        os.rename(path, trash)
        shutil.rmtree(trash, ignore_errors=True)
        return 1
    finally:
        os.close(fd)
