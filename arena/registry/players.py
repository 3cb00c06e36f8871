"""A seat for a stored version: in-process for house bots, sandboxed for everything else;
and what each process bot of a played match wrote, from the logs its seat left."""

from __future__ import annotations

from pathlib import Path

from arena.bots.process_player import ProcessPlayer
from arena.house.names import house_player
from arena.players.player import Player
from arena.registry.archives import runnable
from arena.runtime import Runtime
from arena.store import BotVersion, Database

MAX_LOG_BYTES = 64 * 1024


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


def captured_logs(log_dir: Path, versions: list[BotVersion]) -> dict[int, str]:
    """The end of what each process bot wrote, by entrant (house bots write none): the logs
    ``player_for``'s seats left in ``log_dir``."""
    logs = {}
    for entrant, version in enumerate(versions):
        files = sorted(log_dir.glob(f"{version.ref}*.log")) if log_dir.is_dir() else []
        data = b"".join(path.read_bytes()[-MAX_LOG_BYTES:] for path in files)
        if files:
            logs[entrant] = data[-MAX_LOG_BYTES:].decode(errors="replace")
    return logs
