"""The layers point one way (docs/architecture.md): import-linter checks the contract written in
pyproject.toml, so an upward import (even one inside a function) fails the suite. The Celery
side and the web side plug into the core through interfaces the core defines (``Validator``,
``MatchQueue``), chosen by the CLI or the dashboard."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINT = shutil.which("lint-imports") or str(Path(sys.executable).with_name("lint-imports"))


def lint(cwd: Path) -> subprocess.CompletedProcess[str]:
    if not Path(LINT).exists():
        pytest.fail(
            "import-linter is not installed (it is in the dev extra: pip install -e '.[dev]')"
        )
    env = {**os.environ, "PYTHONPATH": str(cwd)}
    return subprocess.run(
        [LINT, "--no-cache"], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


def test_the_layer_contract_is_kept() -> None:
    run = lint(ROOT)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 kept, 0 broken" in run.stdout


def test_an_upward_import_inside_a_function_breaks_the_contract(tmp_path: Path) -> None:
    """The same kind of contract on a two-layer package: the check sees a deferred import."""
    pkg = tmp_path / "toy"
    (pkg / "low").mkdir(parents=True)
    (pkg / "high").mkdir()
    for init in (pkg, pkg / "low", pkg / "high"):
        (init / "__init__.py").write_text("")
    (pkg / "high" / "a.py").write_text("from toy.low import b\n")
    (pkg / "low" / "b.py").write_text("def f():\n    from toy.high import a\n")
    (tmp_path / ".importlinter").write_text(
        "[importlinter]\nroot_package = toy\n\n"
        "[importlinter:contract:layers]\nname = toy layers\ntype = layers\n"
        "layers =\n    toy.high\n    toy.low\n"
    )
    run = lint(tmp_path)
    assert run.returncode != 0
    assert "toy.low.b -> toy.high.a" in run.stdout
