"""The referee's gRPC client against real servers: the SDK in a subprocess and scripted peers."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from concurrent import futures
from pathlib import Path

import grpc
import pytest

from arena.game import BHOOS, PAGAT, Deal
from arena.players.grpc_player import GrpcPlayer
from arena.players.player import (
    BadReply,
    BotDied,
    BotTimeout,
    GameEnd,
    MatchEnd,
    MatchInfo,
    Request,
    StaleReply,
)
from arena.players.wire import PROTOCOL, observation_from_proto, request_to_proto
from arena.proto import bot_pb2 as pb
from arena.proto import bot_pb2_grpc as pb_grpc
from arena.referee import MatchSpec, play_match

ROOT = Path(__file__).resolve().parents[2]
INFO = MatchInfo("m", PAGAT, 200, 1000)


class Scripted(pb_grpc.BotServicer):
    """A peer answering decision ``id`` with ``answer(id)``: a reply, a delay, or None; it
    keeps the kinds of the events it was sent."""

    def __init__(self, answer) -> None:
        self.answer = answer
        self.events: list[str] = []

    def Play(self, request_iterator, context):
        for msg in request_iterator:
            if msg.WhichOneof("kind") == "event":
                self.events.append(msg.event.WhichOneof("kind"))
            if msg.WhichOneof("kind") == "hello":
                yield pb.BotMessage(hello=pb.HelloReply(protocol=PROTOCOL, name="scripted"))
            elif msg.WhichOneof("kind") == "decision":
                reply = self.answer(msg.decision.id)
                if isinstance(reply, float):
                    time.sleep(reply)
                    reply = pb.DecisionReply(id=msg.decision.id, call=2)
                if reply is not None:
                    yield pb.BotMessage(decision=reply)


@pytest.fixture
def peer(tmp_path):
    servers = []

    def start(answer) -> GrpcPlayer:
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
        servicer = Scripted(answer)
        pb_grpc.add_BotServicer_to_server(servicer, server)
        address = f"unix:{tmp_path}/peer{len(servers)}.sock"
        server.add_insecure_port(address)
        server.start()
        servers.append(server)
        player = GrpcPlayer(address, "peer")
        player.start(INFO, 5)
        player.servicer = servicer  # type: ignore[attr-defined]
        return player

    yield start
    for server in servers:
        server.stop(0)


def call_request(n: int) -> Request:
    deal = Deal(PAGAT, 1)
    return Request(n, "call", 0, deal.observation(deal.to_act), 1000, 200)


def test_a_reply_echoing_the_id_is_the_move(peer):
    player = peer(lambda i: pb.DecisionReply(id=i, call=5))
    assert player.decide(call_request(1), 1.0) == 5
    assert player.bot_name == "scripted"


def test_the_events_sent_just_before_close_reach_the_bot(peer):
    """The referee closes every player after each game, right after GameEnd: the bot must
    still read it (the stream is half-closed, and the bot's end awaited briefly)."""
    player = peer(lambda i: pb.DecisionReply(id=i, call=5))
    player.notify(GameEnd(0, (1.0, 2.0, 3.0, 4.0)))
    player.notify(MatchEnd())
    player.close()
    assert player.servicer.events == ["game_end", "match_end"]


def test_a_mismatched_id_is_a_stale_reply(peer):
    player = peer(lambda i: pb.DecisionReply(id=i + 100, call=5))
    with pytest.raises(StaleReply, match="id 101"):
        player.decide(call_request(1), 1.0)


def test_a_reply_without_a_move_is_malformed(peer):
    player = peer(lambda i: pb.DecisionReply(id=i))
    with pytest.raises(BadReply):
        player.decide(call_request(1), 1.0)


def test_no_answer_times_out_and_the_late_reply_is_dropped(peer):
    player = peer(lambda i: 0.3 if i == 1 else pb.DecisionReply(id=i, call=7))
    with pytest.raises(BotTimeout):
        player.decide(call_request(1), 0.05)
    time.sleep(0.35)  # the late reply to 1 arrives now
    assert player.decide(call_request(2), 1.0) == 7


def test_a_closed_stream_is_a_dead_bot(peer):
    def answer(i):
        raise RuntimeError("boom")  # the servicer fails: the stream ends with an error

    player = peer(answer)
    with pytest.raises(BotDied):
        player.decide(call_request(1), 1.0)
    with pytest.raises(BotDied):  # and stays dead
        player.decide(call_request(2), 1.0)


def test_nobody_listening_fails_the_start(tmp_path):
    player = GrpcPlayer(f"unix:{tmp_path}/nobody.sock", "ghost")
    with pytest.raises(BotDied, match="no gRPC server"):
        player.start(INFO, 0.3)
    player.close()


def test_the_request_round_trips_to_the_same_observation():
    deal = Deal(BHOOS, 9)
    for _ in range(4):
        deal.call(deal.to_act, 3)
    for _ in range(6):
        deal.play(deal.to_act, deal.legal_cards()[-1])
    obs = deal.observation(deal.to_act)
    msg = request_to_proto(4, "play", obs, 2, 900, 300)
    wire = pb.RefereeMessage.FromString(msg.SerializeToString())
    assert observation_from_proto(wire.decision, BHOOS) == obs
    assert wire.decision.observation.game == 2 and wire.decision.time_left_ms == 900


def test_sdk_bots_in_subprocesses_play_a_whole_match(tmp_path):
    procs, players = [], []
    for i in range(4):
        address = f"unix:{tmp_path}/b{i}.sock"
        bot = ROOT / "sample_bots" / "random" / "bot.py"
        procs.append(subprocess.Popen([sys.executable, str(bot), address]))
        players.append(GrpcPlayer(address, f"random{i}"))
    try:
        # One game: the referee opens one stream per game, and the SDK exits when it ends.
        spec = MatchSpec("sdk", PAGAT.with_(deals_per_game=2), seed=4, games=1)
        result = play_match(spec, players)
        codes = [p.wait(timeout=5) for p in procs]
    finally:
        for p in procs:
            p.kill()
    assert result.faults == []
    assert len(result.games) == 1
    assert codes == [0, 0, 0, 0]


def test_stream_ends_release_the_reader_thread(peer):
    player = peer(lambda i: pb.DecisionReply(id=i, call=2))
    before = threading.active_count()
    player.close()
    time.sleep(0.2)
    assert threading.active_count() <= before
