"""The bot protocol registry (``arena.bots.protocols``): each entry drives what the platform
does for its bots (the manifest check, the sandboxed process, the validation game, remote
bots by URL, the rules refused), and a new protocol is one more entry."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from types import SimpleNamespace
from typing import ClassVar

import click
import pytest

from arena.bots import process_player
from arena.bots.factory import make_player, protocol_of_player
from arena.bots.package import BotPackage, PackageError, parse_manifest
from arena.bots.process_player import ProcessPlayer
from arena.bots.protocols import (
    BHOOS_HTTP,
    DEFAULT_PROTOCOL,
    GRPC,
    PROTOCOLS,
    STDIO_JSON,
    BotProtocol,
    protocol_named,
    protocol_of,
    remote_protocol,
)
from arena.cli.play import _check_protocols
from arena.game import BHOOS, PAGAT, Ruleset
from arena.players.bhoos.player import BhoosPlayer
from arena.players.grpc_player import GrpcPlayer
from arena.players.player import BotDied, MatchInfo
from arena.registry import validation

GOOD = 'name = "mybot"\ncommand = ["python3", "bot.py"]\n'
PIGEON_RULES = Ruleset(name="pigeon")


class PigeonPlayer:
    """A stand-in adapter: remembers where it was told to connect."""

    started: ClassVar[list[tuple[str, str]]] = []

    def __init__(self, target: str, name: str) -> None:
        self.target, self.name = target, name

    def start(self, info: MatchInfo, timeout_s: float) -> None:
        PigeonPlayer.started.append((self.target, self.name))

    def close(self) -> None:
        pass


PIGEON = BotProtocol(
    name="carrier-pigeon",
    title="pigeon bot",
    player=PigeonPlayer,
    rules=PIGEON_RULES,
    plays=lambda rules: rules.name == "pigeon",
    relay=("/usr/bin/coop", "--feed"),
    address_arg=False,
    needs_bwrap="a loft of its own",
    url_scheme="pigeon",
)


@pytest.fixture
def pigeon(monkeypatch):
    """The registry with one more protocol, as adding one would leave it."""
    monkeypatch.setitem(PROTOCOLS, PIGEON.name, PIGEON)
    PigeonPlayer.started = []
    return PIGEON


def package(protocol: str, root: Path = Path("/nowhere")) -> BotPackage:
    return BotPackage("mybot", "1", ("python3", "bot.py"), root, "0" * 64, protocol=protocol)


def test_each_entry_says_which_rules_its_bots_play():
    assert list(PROTOCOLS) == ["grpc", "bhoos-http", "stdio-json"] and DEFAULT_PROTOCOL == "grpc"
    for rules in (PAGAT, BHOOS, PAGAT.with_(deals_per_game=2)):
        assert GRPC.plays(rules) and GRPC.refusal(rules) is None
        assert STDIO_JSON.plays(rules) and STDIO_JSON.refusal(rules) is None
    assert BHOOS_HTTP.plays(BHOOS) and BHOOS_HTTP.plays(BHOOS.with_(deals_per_game=1))
    assert BHOOS_HTTP.refusal(PAGAT) == "it plays the bhoos rules only"
    assert (GRPC.rules, BHOOS_HTTP.rules) == (PAGAT, BHOOS)  # what validation plays


def test_each_entry_says_how_its_process_is_started_and_reached():
    assert (GRPC.player, GRPC.relay, GRPC.address_arg, GRPC.needs_bwrap) == (
        GrpcPlayer,
        (),
        True,
        "",
    )
    assert BHOOS_HTTP.player is BhoosPlayer and BHOOS_HTTP.relay[-1].endswith("relay.py")
    assert not BHOOS_HTTP.address_arg and "port 7000" in BHOOS_HTTP.needs_bwrap
    assert remote_protocol("http://host:7000/bot") is BHOOS_HTTP
    assert remote_protocol("https://host") is None and remote_protocol("random") is None


def test_a_manifest_names_a_known_protocol_or_is_refused_with_the_known_ones(pigeon):
    assert protocol_of({}) is GRPC and protocol_of({"house": "random"}) is GRPC
    assert protocol_of({"protocol": "bhoos-http"}) is BHOOS_HTTP
    assert parse_manifest(GOOD + 'protocol = "carrier-pigeon"\n')["protocol"] == "carrier-pigeon"
    for bad in ('"smoke-signals"', "3", '["grpc"]'):
        with pytest.raises(PackageError) as refused:
            parse_manifest(GOOD + f"protocol = {bad}\n")
        message = str(refused.value)
        assert message.endswith("(choose one of: grpc, bhoos-http, stdio-json, carrier-pigeon)")
        assert message.startswith("bot.toml: unknown protocol") and "\n" not in message
    known = "choose one of: grpc, bhoos-http, stdio-json, carrier-pigeon"
    with pytest.raises(ValueError, match=known):
        protocol_named("smoke-signals")


def test_the_process_player_starts_and_reaches_the_bot_as_its_entry_says(
    pigeon, monkeypatch, tmp_path
):
    launched = {}

    class Proc:
        def socket_ready(self):
            return True

        def connect_address(self):
            return "unix:/sock"

        def set_turn(self, on):
            pass

        def stop(self):
            pass

    def launch(command, root, **options):
        launched.update(options, command=command)
        return Proc()

    monkeypatch.setattr(process_player, "resolve_mode", lambda policy: "bwrap")
    monkeypatch.setattr(process_player, "launch", launch)
    player = ProcessPlayer(package("carrier-pigeon", tmp_path), "seat0", log_dir=tmp_path)
    assert player.protocol is PIGEON and protocol_of_player(player) is PIGEON
    player.start(MatchInfo("m", PIGEON_RULES, 1000, 1000), 5.0)
    assert launched["command"][:2] == ["/usr/bin/coop", "--feed"]
    assert launched["command"][2:] == player.package.launch_command()
    assert launched["address_arg"] is False
    assert PigeonPlayer.started == [("unix:/sock", "seat0")]
    player.close()

    monkeypatch.setattr(process_player, "resolve_mode", lambda policy: "rlimits")
    refused = ProcessPlayer(package("carrier-pigeon", tmp_path), log_dir=tmp_path)
    with pytest.raises(BotDied, match=r"a carrier-pigeon bot needs the bwrap sandbox \(a loft"):
        refused.start(MatchInfo("m", PIGEON_RULES, 1000, 1000), 5.0)


def test_validation_plays_the_rules_of_the_bots_protocol(pigeon, monkeypatch, tmp_path):
    played = []

    def play_match(spec, players):
        played.append(spec.rules)
        return SimpleNamespace(faults=[])

    monkeypatch.setattr(validation, "play_match", play_match)
    runtime = SimpleNamespace(limits=None, policy=None)
    for protocol in ("grpc", "bhoos-http", "carrier-pigeon"):
        assert validation.validation_problem(runtime, package(protocol), tmp_path) is None
    assert played == [PAGAT, BHOOS, PIGEON_RULES]


def test_a_remote_bot_by_url_is_its_protocols_player(pigeon):
    remote = make_player("pigeon://loft/7")
    assert isinstance(remote, PigeonPlayer) and remote.target == "pigeon://loft/7"
    assert protocol_of_player(remote) is PIGEON
    bhoos = make_player("http://127.0.0.1:7000")
    assert isinstance(bhoos, BhoosPlayer) and protocol_of_player(bhoos) is BHOOS_HTTP
    assert protocol_of_player(make_player("random")) is None  # an in-process house bot


def test_arena_play_refuses_rules_the_protocol_does_not_know(pigeon, tmp_path):
    player = ProcessPlayer(package("carrier-pigeon", tmp_path), log_dir=tmp_path)
    _check_protocols([make_player("random"), player], PIGEON_RULES)  # its own: fine
    with pytest.raises(click.ClickException) as refused:
        _check_protocols([player], PAGAT)
    assert refused.value.message == (
        "mybot is a pigeon bot: it plays the pigeon rules only (--rules pigeon)"
    )


def test_entries_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        GRPC.name = "grpc2"  # type: ignore[misc]
