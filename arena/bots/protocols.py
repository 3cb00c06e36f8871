"""The bot protocols a manifest may name (``protocol = "..."`` in ``bot.toml``), one entry
each: everything the platform does differently for the bots of one protocol is read here.

A new protocol is its adapter (a package under ``arena/players``: a Player that talks to a
bot at an address) and one entry in ``PROTOCOLS``; the manifest check, the sandboxed
process, the validation game, tournament creation and ``arena play`` consult the entry.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from arena.game import BHOOS, PAGAT, Ruleset
from arena.players.bhoos import relay
from arena.players.bhoos.player import BhoosPlayer
from arena.players.bhoos.wire import plays_bhoos
from arena.players.grpc_player import GrpcPlayer
from arena.players.player import Player
from arena.players.stdio import relay as stdio_relay
from arena.players.stdio.player import StdioJsonPlayer


def _any_rules(rules: Ruleset) -> bool:
    return True


@dataclass(frozen=True)
class BotProtocol:
    """How the platform talks to the bots of one protocol."""

    name: str  # the manifest's ``protocol`` value
    title: str  # how a refusal names one of its bots ("X is a Bhoos HTTP bot: ...")
    # The referee's side of the wire: a Player for the bot at an address, under a name.
    player: Callable[[str, str], Player]
    # The rules its validation game is played under: its bots' own, or the default preset.
    rules: Ruleset = PAGAT
    plays: Callable[[Ruleset], bool] = _any_rules  # whether its bots can play these rules
    # A command the sandbox runs in front of the bot's own (which it starts), e.g. a relay
    # from the platform's socket to the port the bot listens on.
    relay: tuple[str, ...] = ()
    address_arg: bool = True  # the socket's address is the bot command's last argument too
    needs_bwrap: str = ""  # why its bots cannot run without the bwrap sandbox ("": they can)
    url_scheme: str = ""  # ``arena play`` takes a running bot of its own at such a URL

    def refusal(self, rules: Ruleset) -> str | None:
        """Why its bots cannot play ``rules`` (None: they can)."""
        return None if self.plays(rules) else f"it plays the {self.rules.name} rules only"


GRPC = BotProtocol(name="grpc", title="gRPC bot", player=GrpcPlayer)
BHOOS_HTTP = BotProtocol(
    name="bhoos-http",
    title="Bhoos HTTP bot",
    player=BhoosPlayer,
    rules=BHOOS,
    plays=plays_bhoos,  # the protocol carries no rules: its bots assume the bhoos preset
    # The relay runs with the platform's Python, isolated and without site: stdlib only.
    relay=(sys.executable, "-I", "-S", relay.__file__),
    address_arg=False,  # the bot serves its own 127.0.0.1:7000; the relay takes the socket
    # Without a network namespace of its own, port 7000 is the host's: another seat's bot
    # could hold it and be asked for this seat's decisions.
    needs_bwrap="a port 7000 of its own",
    url_scheme="http",
)
STDIO_JSON = BotProtocol(
    name="stdio-json",
    title="stdio-json bot",
    player=StdioJsonPlayer,
    # The relay serves the socket and runs the bot with pipes (stdlib only, as above).
    relay=(sys.executable, "-I", "-S", stdio_relay.__file__),
    address_arg=False,  # the bot reads stdin; it has no address of its own
)
# By manifest name; the first is the default of a manifest that names none.
PROTOCOLS: dict[str, BotProtocol] = {p.name: p for p in (GRPC, BHOOS_HTTP, STDIO_JSON)}
DEFAULT_PROTOCOL = GRPC.name


def protocol_named(name: str) -> BotProtocol:
    """The entry of a protocol a checked manifest names; an unknown one is refused with the
    list of known ones."""
    try:
        return PROTOCOLS[name]
    except (KeyError, TypeError):
        known = ", ".join(PROTOCOLS)
        raise ValueError(f"unknown protocol {name!r} (choose one of: {known})") from None


def protocol_of(manifest: Mapping[str, Any]) -> BotProtocol:
    """The protocol a stored manifest names (the default when it names none, as house bots'
    manifests do)."""
    return protocol_named(manifest.get("protocol", DEFAULT_PROTOCOL))


def remote_protocol(target: str) -> BotProtocol | None:
    """The protocol of a running bot named by its URL (None: ``target`` is no such URL)."""
    scheme = target.partition("://")[0] if "://" in target else ""
    return next((p for p in PROTOCOLS.values() if p.url_scheme and p.url_scheme == scheme), None)
