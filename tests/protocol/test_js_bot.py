"""The JavaScript sample bot speaks the protocol: a scripted match exchange over a Unix socket.

``run_exchange`` is the referee side in miniature and works against any bot that serves
callbreak.v1.Bot, whatever its language.
"""

from __future__ import annotations

import os
import queue
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

import grpc
import pytest

from arena.proto import bot_pb2, bot_pb2_grpc
from tests.support import need

BOT_DIR = Path(__file__).resolve().parents[2] / "sample_bots" / "js_lowcard"
SETUP = "bash sample_bots/js_lowcard/setup.sh"


def needs_reply(message: bot_pb2.RefereeMessage) -> bool:
    return message.WhichOneof("kind") in ("hello", "decision")


def run_exchange(
    address: str, script: Sequence[bot_pb2.RefereeMessage], timeout: float = 10.0
) -> list[bot_pb2.BotMessage]:
    """Open one Play stream, send ``script`` in order, collect the bot's replies, close.

    A reply is awaited after Hello and after every DecisionRequest before the next message
    goes out, as the referee does; events are sent without waiting. After the script the
    request side is closed and the response side must then finish with no further message.
    """
    outbox: queue.Queue[bot_pb2.RefereeMessage | None] = queue.Queue()

    def requests() -> Iterator[bot_pb2.RefereeMessage]:
        while (message := outbox.get()) is not None:
            yield message

    with grpc.insecure_channel(address) as channel:
        grpc.channel_ready_future(channel).result(timeout=timeout)
        responses = bot_pb2_grpc.BotStub(channel).Play(requests(), timeout=timeout)
        replies = []
        for message in script:
            outbox.put(message)
            if needs_reply(message):
                replies.append(next(responses))
        outbox.put(None)
        extra = list(responses)
    assert not extra, f"bot sent unrequested messages: {extra}"
    return replies


def hello(match_id: str = "test-match") -> bot_pb2.RefereeMessage:
    rules = bot_pb2.Rules(
        name="pagat",
        min_call=2,
        max_call=13,
        must_head="never",
        must_trump=True,
        scoring="pagat",
        deals_per_game=5,
        redeal="none",
        bonus_call=8,
        bonus_points=13,
    )
    return bot_pb2.RefereeMessage(
        hello=bot_pb2.Hello(
            protocol="callbreak.v1", match_id=match_id, rules=rules, decision_ms=200, bank_ms=10000
        )
    )


# Seat 2's hand in deal 0 of game 0; seat 1 deals, so seat 2 calls first and leads first.
HAND = ["AS", "KS", "7S", "4S", "3S", "AH", "2H", "QC", "8C", "5C", "KD", "6D", "2D"]


def call_request(request_id: int) -> bot_pb2.RefereeMessage:
    observation = bot_pb2.Observation(
        seat=2,
        dealer=1,
        hand=HAND,
        calls=[0, 0, 0, 0],
        current=bot_pb2.Trick(leader=2, winner=-1),
        won=[0, 0, 0, 0],
        scores=[0, 0, 0, 0],
    )
    return bot_pb2.RefereeMessage(
        decision=bot_pb2.DecisionRequest(
            id=request_id,
            kind=bot_pb2.CALL,
            observation=observation,
            min_call=2,
            max_call=13,
            time_left_ms=10000,
            decision_ms=200,
        )
    )


FIRST_TRICK = bot_pb2.Trick(leader=2, cards=["QC", "AC", "3C", "4C"], winner=3)


def trick_end() -> bot_pb2.RefereeMessage:
    return bot_pb2.RefereeMessage(
        event=bot_pb2.Event(trick_end=bot_pb2.TrickEnd(trick=FIRST_TRICK))
    )


def play_request(request_id: int) -> bot_pb2.RefereeMessage:
    """Second trick: seats 3, 0 and 1 played hearts; seat 2 is last with 2H and AH."""
    observation = bot_pb2.Observation(
        seat=2,
        dealer=1,
        hand=[card for card in HAND if card != "QC"],
        calls=[3, 2, 6, 2],
        tricks=[FIRST_TRICK],
        current=bot_pb2.Trick(leader=3, cards=["5H", "KH", "9H"], winner=-1),
        won=[0, 0, 0, 1],
        scores=[0, 0, 0, 0],
    )
    return bot_pb2.RefereeMessage(
        decision=bot_pb2.DecisionRequest(
            id=request_id,
            kind=bot_pb2.PLAY,
            observation=observation,
            legal_cards=["2H", "AH"],
            time_left_ms=9800,
            decision_ms=200,
        )
    )


def match_end() -> bot_pb2.RefereeMessage:
    return bot_pb2.RefereeMessage(event=bot_pb2.Event(match_end=bot_pb2.MatchEnd()))


@pytest.fixture
def js_bot() -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    need(shutil.which("node") is not None, "node is not installed")
    need((BOT_DIR / "node_modules").is_dir(), f"JS bot dependencies missing: run {SETUP}")
    with tempfile.TemporaryDirectory(prefix="cb-") as scratch:  # short: sun_path holds 108 bytes
        address = f"unix:{scratch}/bot.sock"
        env = {**os.environ, "CALLBREAK_ADDRESS": address}
        process = subprocess.Popen(["node", "bot.js", address], cwd=BOT_DIR, env=env)
        try:
            yield address, process
        finally:
            if process.poll() is None:
                process.kill()
            process.wait(timeout=10)


def test_js_bot_plays_a_scripted_exchange(js_bot: tuple[str, subprocess.Popen[bytes]]) -> None:
    address, process = js_bot
    big_id = 2**40 + 1  # ids are uint64: beyond JavaScript's 32-bit integers
    script = [hello(), call_request(big_id), trick_end(), play_request(big_id + 1), match_end()]
    greeting, call, play = run_exchange(address, script)

    assert greeting.WhichOneof("kind") == "hello"
    assert greeting.hello.protocol == "callbreak.v1"
    assert greeting.hello.name == "js-lowcard"

    assert call.decision.id == big_id
    assert call.decision.WhichOneof("move") == "call"
    assert 2 <= call.decision.call <= 13
    assert call.decision.call == 6  # 2 aces + 2 kings + 2 spades beyond the third

    assert play.decision.id == big_id + 1
    assert play.decision.WhichOneof("move") == "card"
    assert play.decision.card in ("2H", "AH")
    assert play.decision.card == "AH"  # last to play and the ace wins the trick

    assert process.wait(timeout=10) == 0, "bot did not exit cleanly after the stream ended"


def test_js_bot_exits_cleanly_on_sigterm(js_bot: tuple[str, subprocess.Popen[bytes]]) -> None:
    address, process = js_bot
    with grpc.insecure_channel(address) as channel:
        grpc.channel_ready_future(channel).result(timeout=10)
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=10) == 0
