"""Keep numba's on-disk cache honest about the modules a kernel calls into.

numba checks a cached kernel against its own source file only. A kernel that inlines
functions or takes constants from other modules (the trick rules, the heuristic) keeps
running the old code after those change. ``drop_stale`` fingerprints every source a folder's
kernels are built from and empties the folder's cache when any has changed, so a stale
kernel is recompiled, never trusted. Call it before the kernels are imported.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from collections.abc import Iterable
from pathlib import Path

FINGERPRINT = "sources.sha256"


def module_file(name: str) -> Path:
    """The source file of an importable module, without importing it."""
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:  # pragma: no cover - the package is broken
        raise RuntimeError(f"cannot find {name}")
    return Path(spec.origin)


def fingerprint(sources: Iterable[Path]) -> str:
    digest = hashlib.sha256()
    for source in sorted(sources, key=str):
        if source.exists():
            digest.update(source.name.encode() + b"\0" + source.read_bytes() + b"\0")
    return digest.hexdigest()


def drop_stale(folder: Path, sources: Iterable[Path]) -> bool:
    """Empty ``folder``'s numba cache when any of ``sources`` has changed since it was built.

    Returns whether it did. Does nothing where the cache is read-only (the sandbox: its copy
    was checked when it was built outside)."""
    pycache = folder / "__pycache__"
    stamp = pycache / FINGERPRINT
    try:  # a first run must leave its stamp, or the next process drops what this one built
        pycache.mkdir(exist_ok=True)
    except OSError:
        return False
    if not os.access(pycache, os.W_OK):
        return False
    current = fingerprint(sources)
    if stamp.exists() and stamp.read_text() == current:
        return False
    for entry in pycache.glob("*.nb[ic]"):
        entry.unlink(missing_ok=True)
    stamp.write_text(current)
    return True
