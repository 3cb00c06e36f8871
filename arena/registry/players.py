"""A seat for a stored version: in-process for house bots, sandboxed for everything else."""

from __future__ import annotations

from pathlib import Path

from arena.bots.process_player import ProcessPlayer
from arena.house.names import house_player
from arena.players.player import Player
from arena.registry.archives import unpack
from arena.runtime import Runtime
from arena.store import BotVersion, Database, cached_archive


def player_for(
    db: Database, runtime: Runtime, version: BotVersion, seed: int, log_dir: Path
) -> Player:
    """A Player running this stored version: in-process for house bots, sandboxed otherwise
    (its archive comes from this machine's cache, filled from the database)."""
    kind = version.manifest.get("house")
    if kind is not None:
        return house_player(kind, seed, version.bot.name)  # one name in every output
    with db.session(read_only=True) as s:
        archive = cached_archive(s, runtime.blobs, version.sha256)
    package = unpack(runtime, archive, manifest=version.manifest)
    return ProcessPlayer(
        package, version.ref, limits=runtime.limits, policy=runtime.policy, log_dir=log_dir
    )
