"""The master's compiled search, ready at start-up in a read-only sandbox.

numba caches compiled kernels next to their source (``__pycache__``), but only where it may
write; inside the sandbox the ``arena`` package is bound read-only, so numba would compile
again at every start (seconds, against a start-up timeout). The cache is therefore built
outside the sandbox (``arena setup``, or any run of the master outside one) and, when the
source folder is read-only, ``prepare`` copies it into the bot's private ``/tmp`` and points
numba there before the kernels are imported. numba checks each entry against its own
source file only, not against the modules that file calls into or takes constants from (the
heuristic, the trick rules); ``drop_stale`` therefore empties the cache when any of them has
changed (``arena.numba_cache``).
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from arena import numba_cache
from arena.numba_cache import module_file

KERNELS = "arena.house.master.kernels"
# What the compiled kernels are built from: this package's compiled modules and the modules
# they inline.
COMPILED = ("kernels.py", "opponent.py", "policy.py", "reading.py")
DEPENDS = (
    "arena.game.cards",
    "arena.game.tricks",
    "arena.house.compiled",
    "arena.house.calling",
    "arena.house.cardsets",
    "arena.house.heuristic",
    "arena.house.knowledge",
    "arena.house.play",
)


def drop_stale(package: Path | None = None) -> bool:
    """Empty the master's numba cache when any source its kernels are built from has
    changed (see ``arena.numba_cache``). Returns whether it did."""
    package = package or Path(__file__).parent
    sources = [package / name for name in COMPILED] + [module_file(name) for name in DEPENDS]
    return numba_cache.drop_stale(package, sources)


# The kernels a search starts from; their cache entries mean the whole search is built.
SEARCHED = (
    "kernels.sample_hands",
    "kernels.playouts",
    "reading.mh_deals",
    "opponent.heuristic_call",
)


def is_built() -> bool:
    """Whether the in-tree cache holds the compiled search for these sources (a sandboxed
    master starts in a second or two with it, and compiles for 30-45 s without)."""
    drop_stale()
    pycache = Path(__file__).parent / "__pycache__"
    tag = f"py{sys.version_info.major}{sys.version_info.minor}"
    return all(any(pycache.glob(f"{name}-*.{tag}.nbi")) for name in SEARCHED)


def ensure_built() -> float | None:
    """Build the search cache when it is missing (never at a match's start: a cold build
    takes longer than a start-up allowance); the seconds it took, None when it was there."""
    if is_built():
        return None
    return warm()[0]


def used_by(root: Path) -> bool:
    """Whether a bot folder's Python code runs the master's search (the master sample bot,
    or an author's bot built on it): its start-up needs the compiled cache."""
    return any(
        "arena.house.master" in path.read_text(errors="replace")
        for path in Path(root).rglob("*.py")
        if path.is_file() and path.stat().st_size < 1_000_000
    )


def prepare(scratch: Path | None = None) -> Path | None:
    """Before the kernels are imported: when their folder is read-only, copy the prebuilt
    cache to ``scratch`` (a private temp dir by default) and make numba use it. Returns the
    cache dir used then, None when numba can use the in-tree cache itself."""
    source = module_file(KERNELS)
    pycache = source.parent / "__pycache__"
    if os.access(source.parent, os.W_OK) and (not pycache.exists() or os.access(pycache, os.W_OK)):
        return None
    import numba
    from numba.core.caching import UserProvidedCacheLocator

    root = scratch or Path(tempfile.gettempdir()) / "numba-cache"
    target = root / UserProvidedCacheLocator.get_suitable_cache_subpath(str(source))
    target.mkdir(parents=True, exist_ok=True)
    if pycache.is_dir():
        for entry in pycache.glob("*.nb[ic]"):  # every compiled module of the package
            shutil.copyfile(entry, target / entry.name)
    # numba's config module sets its settings at import, from the environment: undeclared
    numba.config.CACHE_DIR = str(root)  # type: ignore[attr-defined]
    return root


def warm() -> tuple[float, int]:
    """Load (or compile and cache) every kernel signature the search uses. Returns the
    seconds taken and how many signatures had to be compiled (0: all came from the cache).
    Run it before serving, so that the first decision does not pay for it."""
    import numpy as np

    from arena.house.master import kernels, opponent, reading
    from arena.house.master.policy import MODEL, SIGHTED

    searched = (kernels.sample_hands, kernels.playouts, reading.mh_deals, opponent.heuristic_call)
    before = _compiled(searched)  # an earlier warm-up in this process counts no more
    start = time.perf_counter()
    one_each = np.array([1, 2, 4, 8], np.int64)  # a one-trick deal: seat s holds card 13 * s
    hands = kernels.sample_hands(
        1,
        0,
        np.array([1, 0, 0, 0], np.int64),
        np.array([13, 26, 39], np.int64),
        one_each[1:],
        np.array([0, 1, 1, 1], np.int64),
    )
    kernels.playouts(
        hands,
        np.zeros((1, 4), np.int64),
        np.full(1, -1, np.int64),
        1,
        1,
        np.zeros(0, np.int64),
        np.zeros(4, np.int64),
        np.zeros(4, np.int64),
        0,
        True,
        False,
        0.05,
        np.array([SIGHTED, MODEL, MODEL, MODEL], np.int64),
        1,
        np.zeros(14, np.int64),
        0,
    )
    reading.mh_deals(
        1,
        0,
        hands[0],
        0,
        np.array([0] * 13 + [2] * 13 + [4] * 13 + [8] * 13, np.int64),
        np.zeros(4, np.int64),
        np.zeros((0, 9), np.int64),
        np.full(4, -1, np.int64),
        0.35,
        1,
        13,
        0.1,
        0,
        True,
        1,
        1,
    )
    opponent.heuristic_call(hands[0][1], 0.35, 1, 13)
    return time.perf_counter() - start, _compiled(searched) - before


def _compiled(kernels) -> int:
    """How many signatures of ``kernels`` this process compiled (cache misses)."""
    return sum(sum(kernel.stats.cache_misses.values()) for kernel in kernels)
