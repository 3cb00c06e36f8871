"""Decision round trip over the bot protocol, and the wall time of a whole process match.

Run: python benchmarks/protocol.py [--decisions N] [--rounds R] [--no-c-kit]
Also the same round trip to a sandboxed Bhoos HTTP bot (one HTTP request per
decision, through the relay in its sandbox) against the gRPC process bot.
And the stdio-json protocol's (JSON lines through the relay in the sandbox, into the bot's
stdin and out of its stdout) against the same gRPC bot: a Python stdio-json bot
(``tests/hostile_bots/stdio_misbehaves plays-well``: the lowest legal card; it writes a
line to its log per message, so also a copy of it with stderr to /dev/null, quiet as the
gRPC sample bot is) and the C starter kit as the platform builds it; last, the
quiet stdio bot against a gRPC bot of the same answers without the SDK's ``Bot`` (the
same work per decision on both sides of the wire but the wire's). The gRPC bots and
the stdio-json bots take turns, R rounds of N/R decisions each (a fresh sandbox each, the
first 100 of each dropped), so a change of load on a shared host falls on every protocol.
Targets: p50 <= 250 µs per decision for a trivial sandboxed Python bot, and a
4-game x 5-deal match of four process bots in under 3 s including start-up (with a
fresh process for every game, so start-up is paid once per game; printed separately).
"""

from __future__ import annotations

import argparse
import queue
import shutil
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
from arena.builds import BuildLimits, build_package
from arena.config import Settings
from arena.game import BHOOS, PAGAT, Deal, Ruleset
from arena.house.names import house_player
from arena.players.player import MatchInfo, Request
from arena.proto import bot_pb2 as pb
from arena.proto import bot_pb2_grpc as pb_grpc
from arena.referee import Clock, MatchSpec, play_match
from arena.sandbox import SandboxPolicy, resolve_mode
from arena.toolchains import installed_version

ROOT = Path(__file__).resolve().parents[1]
RANDOM_BOT = ROOT / "sample_bots" / "random"
BHOOS_BOT = ROOT / "sample_bots" / "bhoos_lowcard"
STALE_ID_BOT = ROOT / "tests" / "hostile_bots" / "stale_id"
STDIO_BOT = ROOT / "tests" / "hostile_bots" / "stdio_misbehaves"  # its bot.toml: plays-well
C_KIT = ROOT / "starters" / "c"
WARMUP = 100  # round trips dropped after each start
# The stdio bot with its log silenced: the gRPC sample bot writes nothing to its log, the
# stdio bot a line per message (and the platform then marks the log before each decision).
QUIET = """import os, runpy, sys
os.dup2(os.open(os.devnull, os.O_WRONLY), 2)
sys.argv = ["bot.py", "plays-well"]
runpy.run_path("bot.py", run_name="__main__")
"""
# The stdio bot's answers over gRPC: the stale-id hostile bot's raw servicer (no SDK ``Bot``,
# no Observation built) with its offset 0, so each reply echoes its request's id.
RAW_GRPC = """import stale_id

stale_id.OFFSET = 0
stale_id.main()
"""


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


def quantiles(samples: list[float]) -> tuple[float, float, float]:
    """p50, p95 and p99 in µs."""
    cuts = statistics.quantiles(samples, n=100)
    return cuts[49] * 1e6, cuts[94] * 1e6, cuts[98] * 1e6


def quiet_stdio_bot(folder: Path) -> Path:
    """A copy of the stdio bot whose stderr goes to /dev/null (same bot, same answers)."""
    folder.mkdir()
    (folder / "bot.py").write_bytes((STDIO_BOT / "bot.py").read_bytes())
    (folder / "quiet.py").write_text(QUIET)
    (folder / "bot.toml").write_text(
        'name = "stdio-quiet"\nversion = "1.0.0"\ncommand = ["python3", "quiet.py"]\n'
        'protocol = "stdio-json"\n'
    )
    return folder


def raw_grpc_bot(folder: Path) -> Path:
    """A gRPC bot answering as the stdio bot does (the lowest legal card), without the SDK's
    ``Bot``: the same per-decision work as the stdio bot, over gRPC."""
    folder.mkdir()
    shutil.copy(STALE_ID_BOT / "bot.py", folder / "stale_id.py")
    (folder / "bot.py").write_text(RAW_GRPC)
    (folder / "bot.toml").write_text(
        'name = "grpc-raw"\nversion = "1.0.0"\ncommand = ["python3", "bot.py"]\n'
    )
    return folder


def built_c_kit(folder: Path) -> Path:
    """The C starter kit built as ``arena bot build`` builds it (limits, sandbox policy)."""
    settings = Settings.from_env()
    build = build_package(
        load_package(C_KIT),
        folder,
        limits=BuildLimits.from_settings(settings),
        policy=SandboxPolicy.from_settings(settings),
        log_path=folder.parent / "c-kit.build.log",
    )
    if not build.ok:
        raise SystemExit(f"the C kit's build failed: {build.reason}\n{build.log[-2000:]}")
    return folder


def taking_turns(bots: dict[str, Path], reqs: list[Request], rounds: int) -> dict[str, list]:
    """Round trips of each bot (a fresh process player per round, ``reqs`` split across the
    rounds), the bots taking turns and the order turning each round."""
    chunk = len(reqs) // rounds
    out: dict[str, list[float]] = {name: [] for name in bots}
    names = list(bots)
    for r in range(rounds):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            player = ProcessPlayer(load_package(bots[name]), name)
            out[name] += round_trips(player, reqs[r * chunk : (r + 1) * chunk])[WARMUP:]
    return out


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
    parser.add_argument("--rounds", type=int, default=3, help="turns of each protocol's bot")
    parser.add_argument("--no-c-kit", action="store_true", help="leave out the C starter kit")
    parser.add_argument("--echo-server", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.echo_server:
        return echo_server(args.echo_server)
    reqs = requests(args.decisions)
    if args.decisions // args.rounds <= WARMUP + 1:
        raise SystemExit(f"--decisions / --rounds must be over {WARMUP + 1}")
    print(f"sandbox mode: {resolve_mode()}")
    with_c = not args.no_c_kit and installed_version("c") is not None
    with tempfile.TemporaryDirectory(prefix="bench-protocol-") as scratch:
        bots = {"grpc": RANDOM_BOT, "stdio": STDIO_BOT}
        bots["stdio-quiet"] = quiet_stdio_bot(Path(scratch) / "quiet")
        bots["grpc-raw"] = raw_grpc_bot(Path(scratch) / "raw")
        if with_c:
            bots["c-kit"] = built_c_kit(Path(scratch) / "c")
        samples = taking_turns(bots, reqs, args.rounds)
    turns = {name: quantiles(taken) for name, taken in samples.items()}
    process = turns["grpc"]
    inproc = quantiles(round_trips(house_player("random", 0, "house:random"), reqs)[100:])
    bare = quantiles(bare_stream(args.decisions)[100:])
    bhoos_player = ProcessPlayer(load_package(BHOOS_BOT), "bhoos")
    bhoos = quantiles(round_trips(bhoos_player, requests(args.decisions, BHOOS))[100:])
    row = "{:<30} p50 {:6.0f} µs  p95 {:6.0f} µs  p99 {:6.0f} µs  {}"
    print(row.format("sandboxed process bot:", *process, "(gRPC, Python; target p50 <= 250)"))
    print(row.format("in-process bot:", *inproc, ""))
    print(row.format("bare gRPC stream echo:", *bare, "(baseline: unsandboxed, no game)"))
    print(row.format("sandboxed Bhoos HTTP bot:", *bhoos, "(Node, via the relay)"))
    print(row.format("sandboxed stdio-json bot:", *turns["stdio"], "(Python, via the relay)"))
    print(row.format("  the same, stderr silenced:", *turns["stdio-quiet"], "(no log lines)"))
    print(row.format("  its answers over gRPC:", *turns["grpc-raw"], "(raw servicer, no SDK Bot)"))
    if with_c:
        print(row.format("sandboxed C starter kit:", *turns["c-kit"], "(stdio-json, built)"))
    print(f"sandboxed bot / bare stream at p50: {process[0] / bare[0]:.2f}x")
    print(f"Bhoos HTTP bot / gRPC process bot at p50: {bhoos[0] / process[0]:.2f}x")
    n = len(reqs) // args.rounds - WARMUP
    print(
        f"stdio-json / gRPC process bot ({args.rounds} rounds each, taking turns, "
        f"{n * args.rounds} round trips each):"
    )
    for name, what, base in [
        ("stdio", "Python stdio-json bot", "grpc"),
        ("stdio-quiet", "the same, stderr silenced", "grpc"),
        ("c-kit", "C starter kit", "grpc"),
        ("stdio-quiet", "stderr silenced / raw gRPC", "grpc-raw"),
    ]:
        if name in turns:
            p50, p95 = (turns[name][i] / turns[base][i] for i in (0, 1))
            print(f"  {what + ':':<28} {p50:.2f}x at p50, {p95:.2f}x at p95")
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
