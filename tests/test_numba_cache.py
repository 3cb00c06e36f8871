"""numba trusts a cached kernel while its own file is unchanged, even when a function it
inlines from another module has changed; ``drop_stale`` must catch that, for the master's
kernels and for the engine's own fast path."""

from __future__ import annotations

import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

from arena.house import compiled

KERNEL = """
from pathlib import Path

import numba

from arena.numba_cache import drop_stale
from rules import value

HERE = Path(__file__).parent
if {guarded}:
    drop_stale(HERE, [HERE / "rules.py", HERE / "kernel.py"])


@numba.njit(cache=True)
def run():
    return value()
"""
RULES = "import numba\n\n\n@numba.njit(cache=True)\ndef value():\n    return {n}\n"


def _run(folder: Path) -> int:
    env = {**os.environ, "PYTHONPATH": f"{folder}{os.pathsep}{Path.cwd()}"}
    out = subprocess.run(
        [sys.executable, "-c", "import kernel; print(kernel.run())"],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return int(out.stdout.strip())


@pytest.mark.parametrize("guarded", [False, True], ids=["numba-alone", "drop_stale"])
def test_a_changed_callee_recompiles_the_kernel_only_with_drop_stale(tmp_path, guarded):
    (tmp_path / "kernel.py").write_text(KERNEL.format(guarded=guarded))
    (tmp_path / "rules.py").write_text(RULES.format(n=1))
    assert _run(tmp_path) == 1
    (tmp_path / "rules.py").write_text(RULES.format(n=2))
    os.utime(tmp_path / "rules.py", (1e9, 2e9))  # a different mtime, whatever the clock
    # numba alone runs the kernel it cached with the old callee inlined (the hazard)...
    assert _run(tmp_path) == (2 if guarded else 1)


def _callees(function: types.FunctionType, seen: set[str]) -> set[str]:
    """The files of every Python function ``function`` reaches through its globals."""
    files = {function.__code__.co_filename}
    for name in function.__code__.co_names:
        target = function.__globals__.get(name)
        target = getattr(target, "py_func", target)  # a numba dispatcher: its Python source
        if isinstance(target, types.FunctionType) and target.__qualname__ not in seen:
            seen.add(target.__qualname__)
            files |= _callees(target, seen)
    return files


def test_the_fast_path_fingerprints_every_file_its_kernels_inline():
    kernels = [v.py_func for v in vars(compiled).values() if hasattr(v, "py_func")]
    assert kernels, "no compiled kernels found in arena.house.compiled"
    files = set().union(*(_callees(kernel, set()) for kernel in kernels))
    assert {Path(f) for f in files} <= {p.resolve() for p in compiled.COMPILED_FROM}
    assert "tricks.py" in {Path(f).name for f in files}
