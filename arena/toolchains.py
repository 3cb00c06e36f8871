"""The languages the platform builds and runs bots in: one entry each, the one table the
manifest check, the build step, the sandbox's view, ``arena setup --runtimes``,
``arena runtimes`` and the dashboard's runtimes page read.

A manifest's ``runtime`` names an entry (``cpp``, ``go``...), or a Python or Node of a
version (``python3.11``, ``node20``: see ``arena.bots.runtimes``). An entry says how to tell
it is installed (a command that prints its version), which Debian packages install it, what
its bots need when they play (folders and shared libraries the sandbox's view must hold:
a compiled Go, Rust or C bot needs nothing beyond libc) and which match queue its bots' matches
go to (the workers of that queue must have those files).
"""

from __future__ import annotations

import functools
import glob
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass

BOT_PATH = os.pathsep.join(["/usr/local/bin", "/usr/bin", "/bin"])  # besides the platform's bin
_LIBRARY_DIRS = ("/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib")
_VERSION = re.compile(r"\d+(?:\.\d+)+")
# Folders of a play tree no bot runs (a JDK's modules for linking, headers, manuals).
PLAY_SKIP = frozenset({"jmods", "include", "man", "legal", "demo", "sample"})
# What a Python bot may import besides the stdlib and ``arena``: the sandbox's view holds these
# distributions, with what they require, and none of the platform's others (SQLAlchemy,
# Flask, Celery...). grpcio and protobuf are the SDK's; numpy and numba are offered on
# purpose (the master's search runs on them). docs/sdk.md lists what a bot then imports.
PYTHON_PACKAGES = ("grpcio", "protobuf", "numpy", "numba")


@dataclass(frozen=True)
class Toolchain:
    name: str  # what a manifest's ``runtime`` says
    title: str  # how contestants see it
    version_command: tuple[str, ...]  # prints its version; found on the bots' PATH
    packages: tuple[str, ...]  # Debian packages that install it (building and playing)
    queue: str = "arena"  # where its bots' matches go
    play_trees: tuple[str, ...] = ()  # host folders its bots read when they play
    play_libraries: tuple[str, ...] = ()  # shared libraries (globs) its bots load
    play_home: str = ""  # a command whose installation folder (bin/..) its bots read
    languages: tuple[str, ...] = ()  # ``language`` values that usually mean it

    def play_paths(self) -> list[str]:
        """The host files its bots need at play, as they exist here."""
        found = [path for path in self.play_trees if os.path.exists(path)]
        if self.play_home and (command := shutil.which(self.play_home, path=BOT_PATH)):
            found += [command, os.path.dirname(os.path.dirname(os.path.realpath(command)))]
        for pattern in self.play_libraries:
            for folder in _LIBRARY_DIRS:
                found += sorted(glob.glob(os.path.join(folder, pattern)))
        return found


TOOLCHAINS: tuple[Toolchain, ...] = (
    Toolchain(
        "python",
        f"Python (the platform's own: the arena SDK and {', '.join(PYTHON_PACKAGES)} importable)",
        (sys.executable, "--version"),
        (),
        languages=("python",),
    ),
    Toolchain(
        "node",
        "Node.js (ship node_modules in the upload, or build them with npm ci --offline)",
        ("node", "--version"),
        ("nodejs", "npm"),
        queue="arena.node",
        languages=("javascript", "typescript"),
    ),
    Toolchain(
        "c",
        "C (gcc, libc only): stdio-json bots",
        ("gcc", "--version"),
        ("gcc", "make", "libc6-dev"),
        languages=("c",),
    ),
    Toolchain(
        "cpp",
        "C++ (g++ 12, gRPC 1.51 and protobuf 3.21 from Debian: pkg-config grpc++ protobuf)",
        ("g++", "--version"),
        ("g++", "make", "pkg-config", "libgrpc++-dev", "protobuf-compiler-grpc"),
        queue="arena.cpp",
        play_libraries=("libgrpc++.so.[0-9]*", "libprotobuf.so.[0-9]*"),
        languages=("c++", "cpp"),
    ),
    Toolchain(
        "go",
        "Go (Debian's golang-go, gRPC-Go in /usr/share/gocode, GOPATH mode, no downloads)",
        ("go", "version"),
        ("golang-go", "golang-google-grpc-dev", "golang-goprotobuf-dev"),
        languages=("go",),
    ),
    Toolchain(
        "java",
        "Java 17 (javac; grpc-java, protobuf-java and netty jars in /usr/share/java, to copy in)",
        ("javac", "-version"),
        (
            "openjdk-17-jdk-headless",
            "libgrpc-java",
            "libprotobuf-java",
            "libnetty-java",
            "libjctools-java",
            "libperfmark-java",
            "protobuf-compiler",
            "protobuf-compiler-grpc-java-plugin",
        ),
        queue="arena.java",
        play_trees=("/etc/java-17-openjdk",),
        play_home="java",
        languages=("java", "kotlin"),
    ),
    Toolchain(
        "rust",
        "Rust (rustc and cargo, std only: builds are offline, vendor any crate)",
        ("rustc", "--version"),
        ("rustc", "cargo"),
        languages=("rust",),
    ),
)
BY_NAME = {chain.name: chain for chain in TOOLCHAINS}


def toolchain_named(name: str) -> Toolchain | None:
    """The entry a manifest's ``runtime`` names: its own name, or ``pythonX``/``nodeN``."""
    family = re.match(r"[a-z+]*", name.strip().lower())
    key = family.group() if family else ""
    return BY_NAME.get({"c++": "cpp"}.get(key, key))


def packages_for(names: list[str]) -> list[str]:
    """The Debian packages of the named toolchains ("all": every one), each once; an unknown
    name is a ``ValueError`` that lists the known ones."""
    if names == ["all"]:
        names = list(BY_NAME)
    if unknown := [name for name in names if name not in BY_NAME]:
        known = ", ".join(BY_NAME)
        raise ValueError(f"no runtime named {unknown[0]!r}: write one of {known} (or all)")
    return list(dict.fromkeys(p for name in names for p in BY_NAME[name].packages))


@functools.cache
def installed_version(name: str) -> str | None:
    """The version of the toolchain installed here (None: not installed)."""
    chain = BY_NAME[name]
    command, *args = chain.version_command
    found = shutil.which(command, path=_bot_path())
    if found is None:
        return None
    try:
        out = subprocess.run([found, *args], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if out.returncode != 0:
        return None
    match = _VERSION.search(out.stdout + out.stderr)
    return match.group() if match else "unknown"


def installed() -> dict[str, str]:
    """Name → version of every toolchain installed here, in the table's order."""
    versions = {chain.name: installed_version(chain.name) for chain in TOOLCHAINS}
    return {name: version for name, version in versions.items() if version is not None}


@dataclass(frozen=True)
class RuntimeRow:
    """A toolchain as ``arena runtimes`` and the dashboard show it."""

    name: str  # what bot.toml's ``runtime`` says (python3.X: any installed Python 3)
    version: str | None  # installed here (None: not installed)
    title: str
    packages: tuple[str, ...]


def runtime_table() -> list[RuntimeRow]:
    """Every toolchain of the table, with the version installed here."""
    shown = {"python": "python3.X", "node": "nodeN"}
    return [
        RuntimeRow(shown.get(c.name, c.name), installed_version(c.name), c.title, c.packages)
        for c in TOOLCHAINS
    ]


def play_paths() -> list[str]:
    """What every installed toolchain's bots need at play (the sandbox's view holds them)."""
    return [path for name in installed() for path in BY_NAME[name].play_paths()]


def _bot_path() -> str:
    return os.pathsep.join([os.path.dirname(sys.executable), BOT_PATH])
