"""Turn what a user names (a house bot or a bot package path) into a Player."""

from __future__ import annotations

from pathlib import Path

from arena.bots.house import HOUSE_BOTS
from arena.bots.inprocess import InProcessPlayer
from arena.bots.limits import DEFAULT_LIMITS, Limits
from arena.bots.package import PackageError, load_package
from arena.bots.player import Player
from arena.bots.process_player import ProcessPlayer
from arena.bots.sandbox import SandboxPolicy

HOUSE_PREFIX = "house:"


def house_player(name: str, seed: int = 0) -> Player:
    key = name.removeprefix(HOUSE_PREFIX).partition("#")[0]  # house:heuristic#2 is a 2nd copy
    if key not in HOUSE_BOTS:
        known = ", ".join(HOUSE_BOTS)
        raise PackageError(f"unknown house bot {name!r} (house bots: {known})")
    return InProcessPlayer(HOUSE_BOTS[key](seed=seed), f"{HOUSE_PREFIX}{key}")


def make_player(
    spec: str,
    *,
    seed: int = 0,
    limits: Limits = DEFAULT_LIMITS,
    policy: SandboxPolicy | None = None,
    log_dir: Path | None = None,
    unpack_dir: Path | None = None,
    entrant: int = 0,
) -> Player:
    """``spec`` is a bot directory or zip, or a house bot name (``heuristic``, ``house:random``).
    A process bot logs to ``<entrant + 1>-<name>.log``: one file per seat, even for copies."""
    path = Path(spec)
    if path.exists():
        package = load_package(path, unpack_dir)
        log_name = f"{entrant + 1}-{package.name}.log"
        return ProcessPlayer(
            package, limits=limits, policy=policy, log_dir=log_dir, log_name=log_name
        )
    if spec.startswith(HOUSE_PREFIX) or spec in HOUSE_BOTS:
        return house_player(spec, seed)
    known = ", ".join(HOUSE_BOTS)
    raise PackageError(f"{spec}: no such bot directory or archive, and not a house bot ({known})")
