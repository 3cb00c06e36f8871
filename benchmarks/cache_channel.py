"""The page-cache channel that remains once the sandbox refuses every call that reads or drops
cache state: bits carried from game 1 of a match to games 2-4 by first-read faults
on big shared files (tests/hostile_bots/cache_timing/bot.py), through the real referee in the
real bwrap sandbox against three house bots.

For every later game it prints how many of the 52 bits (the mask of the bot's game-1 hand)
were readable, how many of those were right, and how long writing and reading took. Run:
python benchmarks/cache_channel.py [--matches N]
"""

from __future__ import annotations

import argparse
import os
import re
import secrets
import shutil
import statistics
import tempfile
from pathlib import Path

from arena.bots.package import load_package
from arena.bots.process_player import ProcessPlayer
from arena.game import PAGAT
from arena.game.cards import CARDS
from arena.house.names import house_player
from arena.referee import Clock, MatchSpec, play_match, secret_seed
from arena.sandbox import SandboxPolicy

BOT = Path(__file__).resolve().parents[1] / "tests" / "hostile_bots" / "cache_timing"
RULES = PAGAT.with_(deals_per_game=2)
CLOCK = Clock(decision_ms=5000, bank_ms=30_000, startup_ms=15_000)
POLICY = SandboxPolicy(mode="bwrap", stop_grace_seconds=0.5)
NAMES = [str(c) for c in CARDS]


def one_match(area: Path) -> tuple[str, list[str], float, list[float]]:
    """(the true mask, the mask each later game read, ms to write, ms to read each)."""
    bot = area / f"bot-{secrets.token_hex(4)}"
    shutil.copytree(BOT, bot)
    (bot / "region.txt").write_text(str(secrets.randbelow(10_000)))
    for path in [bot, *bot.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    player = ProcessPlayer(load_package(bot), "timing", policy=POLICY, log_dir=area / "logs")
    houses = [house_player("random", s, f"house:{s}") for s in (1, 2, 3)]
    spec = MatchSpec("cache-channel", rules=RULES, seed=secret_seed(), games=4, clock=CLOCK)
    try:
        result = play_match(spec, [player, *houses])
    finally:
        player.close()
    game = result.record["games"][0]
    hand = set(game["deals"][0]["hands"][game["seats"].index(0)].split())
    truth = "".join("1" if name in hand else "0" for name in NAMES)
    log = player.log_path.read_text()
    read = re.findall(r"^CHANNEL game \d+: \d+ / 52 readable: ([01?]+) in ([\d.]+) ms$", log, re.M)
    wrote = re.search(r"^WROTE \d+ bits in ([\d.]+) ms$", log, re.M)
    if wrote is None or len(read) != 3:
        raise SystemExit(f"the bot did not report as expected:\n{log[-2000:]}")
    return truth, [mask for mask, _ in read], float(wrote[1]), [float(ms) for _, ms in read]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--matches", type=int, default=5)
    args = parser.parse_args()
    area = Path(tempfile.mkdtemp(prefix="arena-cache-channel-"))
    area.chmod(0o755)
    readable = right = 0
    write_ms: list[float] = []
    read_ms: list[float] = []
    whole = 0
    try:
        for _ in range(args.matches):
            truth, masks, wrote, reads = one_match(area)
            write_ms.append(wrote)
            read_ms += reads
            for mask in masks:
                known = [(m, t) for m, t in zip(mask, truth, strict=True) if m != "?"]
                readable += len(known)
                right += sum(m == t for m, t in known)
                whole += all(m == t for m, t in zip(mask, truth, strict=True))
    finally:
        shutil.rmtree(area, ignore_errors=True)
    games = 3 * args.matches
    print(f"matches: {args.matches}   later games: {games}   load: {os.getloadavg()}")
    print(f"bits sent per later game: 52 (two pages each)   readable: {readable / games:.1f}")
    print(f"accuracy of readable bits: {right / max(1, readable):.1%}")
    print(f"later games that read the whole hand right: {whole} / {games}")
    print(
        f"time: writing 3 x 52 bits {statistics.median(write_ms):.1f} ms (median), "
        f"reading 52 bits {statistics.median(read_ms):.1f} ms"
    )


if __name__ == "__main__":
    main()
