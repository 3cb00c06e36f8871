"""Decision round trip over the bot protocol, and the wall time of a whole process match.

Run: python benchmarks/protocol.py [--decisions N]
Also the same round trip to a sandboxed Bhoos HTTP bot (issue 12: one HTTP request per
decision, through the relay in its sandbox) against the gRPC process bot.
Targets (issue 3): p50 <= 250 µs per decision for a trivial sandboxed Python bot, and a
4-game x 5-deal match of four process bots in under 3 s including start-up (issue 7: with a
fresh process for every game, so start-up is paid once per game; printed separately).
"""

from __future__ import annotations

import argparse
import queue
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent import futures
from pathlib import Path

import grpc

from arena.bots.package import load_package
from arena.bots.process_player import ProcessPlayer
from arena.game import BHOOS, PAGAT, Deal, Ruleset
from arena.house.names import house_player
from arena.players.player import MatchInfo, Request
from arena.proto import bot_pb2 as pb
from arena.proto import bot_pb2_grpc as pb_grpc
from arena.referee import Clock, MatchSpec, play_match
from arena.sandbox import resolve_mode

ROOT = Path(__file__).resolve().parents[1]
RANDOM_BOT = ROOT / "sample_bots" / "random"
BHOOS_BOT = ROOT / "sample_bots" / "bhoos_lowcard"


def requests(n: int, rules: Ruleset = PAGAT) -> list[Request]:
    """Realistic mid-deal PLAY requests (a few tricks played, a full observation to send)."""
    deal = Deal(rules, 7)
    for _ in range(4):
        deal.call(deal.to_act, 3)
    for _ in range(17):
        deal.play(deal.to_act, deal.legal_cards()[0])
    obs = deal.observation(deal.to_act)
    return [Request(i + 1, "play", 0, obs, 10_000, 1_000) for i in range(n)]


def round_trips(player, reqs: list[Request]) -> list[float]:
    player.start(MatchInfo("bench", reqs[0].observation.rules, 1000, 10_000), 15)
    try:
        out = []
        for req in reqs:
            t0 = time.perf_counter()
            player.decide(req, 1.0)
            out.append(time.perf_counter() - t0)
        return out
    finally:
        player.close()


class _Echo(pb_grpc.BotServicer):
    def Play(self, request_iterator, context):
        for msg in request_iterator:
            yield pb.BotMessage(decision=pb.DecisionReply(id=msg.decision.id, call=2))


def echo_server(address: str) -> None:
    """The baseline peer: a bare stream servicer that answers without looking."""
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    pb_grpc.add_BotServicer_to_server(_Echo(), server)
    server.add_insecure_port(address)
    server.start()
    server.wait_for_termination()


def bare_stream(n: int) -> list[float]:
    """Round trips of a tiny message on an open stream to an unsandboxed echo process."""
    address = f"unix:{tempfile.mkdtemp()}/echo.sock"
    proc = subprocess.Popen([sys.executable, __file__, "--echo-server", address])
    try:
        channel = grpc.insecure_channel(address)
        grpc.channel_ready_future(channel).result(timeout=15)
        outbox: queue.SimpleQueue = queue.SimpleQueue()
        replies = pb_grpc.BotStub(channel).Play(iter(outbox.get, None))
        out = []
        for i in range(n):
            t0 = time.perf_counter()
            outbox.put(pb.RefereeMessage(decision=pb.DecisionRequest(id=i)))
            next(replies)
            out.append(time.perf_counter() - t0)
        outbox.put(None)
        return out
    finally:
        proc.kill()


def quantiles(samples: list[float]) -> tuple[float, float]:
    cuts = statistics.quantiles(samples, n=100)
    return cuts[49] * 1e6, cuts[98] * 1e6


def match_wall_time(bot: Path = RANDOM_BOT, rules: Ruleset = PAGAT, games: int = 4) -> float:
    package = load_package(bot)
    t0 = time.perf_counter()
    players = [ProcessPlayer(package, f"bot{i}") for i in range(4)]
    spec = MatchSpec("bench", rules.with_(deals_per_game=5), 1, games, Clock())
    result = play_match(spec, players)
    elapsed = time.perf_counter() - t0
    if result.faults:
        raise SystemExit(f"the benchmark match had faults: {result.faults[:2]}")
    return elapsed


def start_four() -> float:
    """Wall time to start four sandboxed bots at once (what every game now begins with)."""
    package = load_package(RANDOM_BOT)
    players = [ProcessPlayer(package, f"random{i}") for i in range(4)]
    info = MatchInfo("bench", PAGAT, 1000, 10_000)
    t0 = time.perf_counter()
    with futures.ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda p: p.start(info, 15.0), players))
    elapsed = time.perf_counter() - t0
    for player in players:
        player.close()
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=3000)
    parser.add_argument("--echo-server", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.echo_server:
        return echo_server(args.echo_server)
    reqs = requests(args.decisions)
    print(f"sandbox mode: {resolve_mode()}")
    process = quantiles(round_trips(ProcessPlayer(load_package(RANDOM_BOT), "random"), reqs)[100:])
    inproc = quantiles(round_trips(house_player("random", 0, "house:random"), reqs)[100:])
    bare = quantiles(bare_stream(args.decisions)[100:])
    bhoos_player = ProcessPlayer(load_package(BHOOS_BOT), "bhoos")
    bhoos = quantiles(round_trips(bhoos_player, requests(args.decisions, BHOOS))[100:])
    row = "{:<26} p50 {:6.0f} µs  p99 {:6.0f} µs  {}"
    print(row.format("sandboxed process bot:", *process, "(target p50 <= 250)"))
    print(row.format("in-process bot:", *inproc, ""))
    print(row.format("bare gRPC stream echo:", *bare, "(baseline: unsandboxed, no game)"))
    print(row.format("sandboxed Bhoos HTTP bot:", *bhoos, "(Node, via the relay)"))
    print(f"sandboxed bot / bare stream at p50: {process[0] / bare[0]:.2f}x")
    print(f"Bhoos HTTP bot / gRPC process bot at p50: {bhoos[0] / process[0]:.2f}x")
    starts = [start_four() for _ in range(5)]
    walls = [match_wall_time() for _ in range(3)]
    start = statistics.median(starts)
    print(f"start of four sandboxed bots at once: median {start:.2f} s (paid once per game)")
    print(
        f"4 games x 5 deals, four random process bots: best {min(walls):.2f} s, "
        f"median {statistics.median(walls):.2f} s (4 start-ups included; target < 3 s), "
        f"of which start-ups ~{4 * start / statistics.median(walls):.0%}"
    )
    bhoos_walls = [match_wall_time(BHOOS_BOT, BHOOS) for _ in range(3)]
    print(
        f"4 games x 5 deals, four Bhoos HTTP bots (Node): best {min(bhoos_walls):.2f} s, "
        f"median {statistics.median(bhoos_walls):.2f} s (4 start-ups included)"
    )


if __name__ == "__main__":
    main()
