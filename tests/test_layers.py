"""The layers point one way (docs: design): nothing in ``arena`` below its command line
imports ``workers`` or ``dashboard``, not even inside a function. The Celery side and the
web side plug into the core through interfaces the core defines (``Validator``,
``MatchQueue``), chosen by the CLI or the dashboard."""

from __future__ import annotations

import ast
from pathlib import Path

ARENA = Path(__file__).resolve().parents[1] / "arena"
ABOVE = ("workers", "dashboard")


def imported(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every import in the file, at any depth."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.append((node.lineno, node.module))
    return found


def test_the_core_never_imports_the_workers_or_the_dashboard() -> None:
    upward = [
        f"{path.relative_to(ARENA.parent)}:{line}: {module}"
        for path in sorted(ARENA.rglob("*.py"))
        if "cli" not in path.relative_to(ARENA).parts  # the command line sits on top
        for line, module in imported(path)
        if module.split(".")[0] in ABOVE
    ]
    assert upward == []


def test_the_check_sees_an_import_inside_a_function(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from workers.client.matches import send_matches\n")
    assert imported(module) == [(2, "workers.client.matches")]
