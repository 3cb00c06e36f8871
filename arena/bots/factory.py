"""Turn what a user names (a house bot, a bot package path or a remote Bhoos bot's URL)
into a Player."""

from __future__ import annotations

from pathlib import Path

from arena.bots.package import PackageError, load_package
from arena.bots.process_player import ProcessPlayer
from arena.bots.protocols import BotProtocol, remote_protocol
from arena.bots.runtimes import runtime_problem
from arena.house import HOUSE_BOTS
from arena.house.names import house_player, parse_house
from arena.players.player import Player
from arena.sandbox import SandboxPolicy
from arena.sandbox.limits import DEFAULT_LIMITS, Limits


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
    """``spec`` is a bot directory or zip, a house bot name (``heuristic``, ``house:random``)
    or the URL of a running bot of a protocol that takes one (a Bhoos HTTP bot:
    ``http://host:7000``, not sandboxed).
    A process bot logs to ``<entrant + 1>-<name>.log``: one file per seat, even for copies."""
    if (remote := remote_protocol(spec)) is not None:
        try:
            return remote.player(spec, spec)
        except ValueError as exc:
            raise PackageError(str(exc)) from None
    path = Path(spec)
    if path.exists():
        package = load_package(path, unpack_dir)
        if problem := runtime_problem(package.runtime):
            raise PackageError(f"{spec}: bot.toml: {problem}")
        log_name = f"{entrant + 1}-{package.name}.log"
        return ProcessPlayer(
            package, limits=limits, policy=policy, log_dir=log_dir, log_name=log_name
        )
    house = parse_house(spec, bare=True)
    if house is not None:
        return house_player(house.kind, seed, house.stored_name)
    known = ", ".join(HOUSE_BOTS)
    raise PackageError(f"{spec}: no such bot directory or archive, and not a house bot ({known})")


def protocol_of_player(player: Player) -> BotProtocol | None:
    """The protocol a process or remote bot speaks (None: an in-process house bot)."""
    if isinstance(player, ProcessPlayer):
        return player.protocol
    return remote_protocol(getattr(player, "target", ""))
