"""A seat for a stored version: in-process for house bots, sandboxed for everything else."""

from __future__ import annotations

from pathlib import Path

from arena.bots.process_player import ProcessPlayer
from arena.house.names import house_player
from arena.players.player import Player
from arena.registry.archives import runnable
from arena.runtime import Runtime
from arena.store import BotVersion, Database


def player_for(
    db: Database, runtime: Runtime, version: BotVersion, seed: int, log_dir: Path
) -> Player:
    """A Player running this stored version: in-process for house bots, sandboxed otherwise
    (its built folder or upload comes from this machine's cache, filled from the
    database)."""
    kind = version.manifest.get("house")
    if kind is not None:
        return house_player(kind, seed, version.bot.name)  # one name in every output
    package = runnable(db, runtime, version)
    return ProcessPlayer(
        package, version.ref, limits=runtime.limits, policy=runtime.policy, log_dir=log_dir
    )
