"""What a Python bot can import in the bwrap sandbox is exactly docs/sdk.md's table ("What a
bot can import"): a sandboxed Python, started as a bot is, tries every top-level module on
its path that is not the stdlib's and reports those that import; the table's distributions
are those the sandbox's view holds (arena/sandbox/view.py, ``PYTHON_PACKAGES``)."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest

from arena import sandbox as sb
from arena.sandbox.view import _PLATFORM_DIST, _distributions, _norm

pytestmark = pytest.mark.slow

SDK_DOC = Path(__file__).resolve().parents[2] / "docs" / "sdk.md"
# The platform's own packages (pyproject's packages.find): an installed platform's files are
# in the view, so `arena` imports; the others are not for bots (most need what is not there).
PLATFORM = {"arena", "dashboard", "workers", "sample_bots"}

REPORTER = textwrap.dedent(
    """
    import importlib, json, os, sys, sysconfig
    import arena.sdk  # what every Python bot imports first

    stdlib = sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["platstdlib"]
    own = {os.path.dirname(os.path.abspath(__file__)), *stdlib}
    own |= {os.path.join(path, "lib-dynload") for path in stdlib}  # its xxlimited too
    own = {os.path.realpath(path) for path in own}
    names = {"arena"}  # an editable install's finder may hold it, not a folder on the path
    for entry in sys.path:
        if not os.path.isdir(entry) or os.path.realpath(entry) in own:
            continue  # the bot's own folder, the stdlib's
        for file in os.listdir(entry):
            name = file.split(".", 1)[0]
            metadata = file.endswith((".dist-info", ".egg-info", ".pth"))
            if name.isidentifier() and not name.startswith("_") and not metadata:
                names.add(name)
    found = []
    for name in sorted(names - set(sys.stdlib_module_names)):
        try:
            importlib.import_module(name)
        except Exception:  # missing, or a package whose own requirements are missing
            continue
        found.append(name)
    print(json.dumps(found))
    """
)


def documented() -> dict[str, str]:
    """The doc's table: each import (its top-level name) and its distribution."""
    text = SDK_DOC.read_text()
    section = text.split("### What a bot can import", 1)[1].split("\n#", 1)[0]
    rows = re.findall(r"^\| `([\w.]+)` \| ([^|]+?) \|", section, re.M)
    assert rows, "docs/sdk.md has no table of what a bot can import"
    return {module.split(".")[0]: dist for module, dist in rows}


def test_a_sandboxed_python_imports_exactly_what_the_sdk_guide_lists(
    sandbox_policy: sb.SandboxPolicy, area: Path
) -> None:
    bot = area / "bot"
    bot.mkdir(mode=0o755)
    (bot / "reporter.py").write_text(REPORTER)
    (bot / "reporter.py").chmod(0o644)
    command = ["python3", "reporter.py"]
    with sb.launch(command, bot, log_path=area / "log", policy=sandbox_policy) as proc:
        assert proc.wait(timeout=120) == 0, proc.log_path.read_text()[-2000:]
    log = proc.log_path.read_text()
    importable = set(json.loads(log.splitlines()[0]))
    assert "arena" in importable
    # numpy and SQLAlchemy both import outside; only what the doc promises imports inside
    assert importable - PLATFORM == set(documented()) - {"arena"}, log[-2000:]


def test_the_guides_distributions_are_the_ones_the_sandbox_holds() -> None:
    dists = {_norm(name) for module, name in documented().items() if module != "arena"}
    held = {_norm(d.metadata["Name"]) for d in _distributions()} - {_PLATFORM_DIST}
    assert held == dists
    assert {"numpy", "numba"} <= held and "sqlalchemy" not in held
