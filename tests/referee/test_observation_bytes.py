"""No request a bot receives carries a card another seat still holds, checked on the exact
bytes the referee put on the wire, in a real match of four sandboxed sample_bots/random."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.bots.package import load_package
from arena.bots.process_player import ProcessPlayer
from arena.game import parse_cards
from arena.players import stream
from arena.proto import bot_pb2 as pb
from arena.referee import Clock, MatchSpec, play_match
from arena.sandbox import SandboxPolicy
from tests.referee.conftest import (
    GAMES,
    RULES,
    copy_bot_dir,
    live_pids,
    sandbox_leftovers,
)
from tests.support import SAMPLE_BOTS

pytestmark = pytest.mark.slow

# Generous: the bots are honest, and a busy machine must not turn into timeouts here.
CLOCK = Clock(decision_ms=2000, bank_ms=10_000, startup_ms=15_000)


def wire(card: str) -> bytes:
    """How a card appears inside an encoded message: length prefix 2, then its text."""
    return b"\x02" + card.encode()


def strings(msg) -> Iterator[str]:
    """Every string field anywhere in a parsed message."""
    for field, value in msg.ListFields():
        values = value if field.is_repeated else [value]
        if field.type == field.TYPE_MESSAGE:
            for item in values:
                yield from strings(item)
        elif field.type == field.TYPE_STRING:
            yield from values


def held_at_each_decision(record: dict) -> Iterator[tuple[int, int, list[set[str]], set[str]]]:
    """(decision id, seat to act, cards each seat still holds, cards played this deal) at
    the moment of every decision of the match record."""
    for game in record["games"]:
        for deal in game["deals"]:
            hands = [{str(c) for c in parse_cards(h)} for h in deal["hands"]]
            played = [c for trick in deal["tricks"] for c in trick["cards"]]
            for k, entry in enumerate(deal["decisions"]):
                gone = set(played[: max(0, k - 4)])  # 4 calls, then one card per decision
                yield entry["id"], entry["seat"], [h - gone for h in hands], gone


def test_requests_never_carry_other_seats_cards(
    sandbox_policy: SandboxPolicy, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent: dict[int, bytes] = {}
    encode = stream.request_to_proto

    def recording(*args, **kwargs):
        msg = encode(*args, **kwargs)
        sent[msg.decision.id] = msg.SerializeToString()
        return msg

    monkeypatch.setattr(stream, "request_to_proto", recording)
    package = load_package(copy_bot_dir(SAMPLE_BOTS / "random", tmp_path / "bots"))
    players = [
        ProcessPlayer(package, f"random-{e}", policy=sandbox_policy, log_dir=tmp_path / "logs")
        for e in range(4)
    ]
    spec = MatchSpec("observation-bytes", rules=RULES, seed=5, games=GAMES, clock=CLOCK)
    before = live_pids()
    result = play_match(spec, players)
    assert sandbox_leftovers(package.root, before) == []
    assert result.faults == []

    decisions = list(held_at_each_decision(result.record))
    assert len(decisions) == GAMES * RULES.deals_per_game * 56
    assert sorted(sent) == sorted(d[0] for d in decisions)  # every request, captured once
    for decision_id, seat, held, gone in decisions:
        data = sent[decision_id]
        msg = pb.RefereeMessage.FromString(data)
        assert msg.decision.id == decision_id and msg.decision.observation.seat == seat
        others = set().union(*(held[s] for s in range(4) if s != seat))
        leaked = sorted(c for c in others if wire(c) in data)
        assert leaked == [], f"decision {decision_id}: seat {seat} was sent {leaked}"
        assert not others & set(strings(msg)), f"decision {decision_id}"
        # Positive controls: its own hand and the cards already played are all there.
        assert set(msg.decision.observation.hand) == held[seat]
        assert all(wire(c) in data for c in held[seat] | gone), f"decision {decision_id}"
