"""House bots as stored versions: no code, a ``house`` key in the manifest, so schedules,
results and standings treat every seat the same way."""

from __future__ import annotations

from arena.bots.package import PackageError
from arena.house.names import parse_house
from arena.runtime import Runtime
from arena.store import BotVersion, Database, add_bot_version


def house_version(db: Database, runtime: Runtime, name: str) -> BotVersion:
    """The stored version standing for the house bot ``name`` (created on first use)."""
    house = parse_house(name)
    if house is None:
        raise PackageError(f"{name!r} is not a house bot name (e.g. house:heuristic)")
    manifest = {"name": house.stored_name, "version": "builtin", "house": house.kind}
    archive = f"house bot {house.stored_name}\n".encode()
    with db.session() as s:
        return add_bot_version(s, runtime.blobs, archive, manifest, "valid")
