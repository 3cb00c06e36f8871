"""Seeded runs repeat exactly: the sample random bot draws from ``Bot.rng``, which the SDK
seeds from its ``Hello`` id, and that id is a one-way hash of the match's seed, game and
entrant. ``arena demo --seed N`` derives its deals from N; tournaments keep secret deal seeds.
Real sample-bot processes in the sandbox."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

from click.testing import CliRunner

from arena.cli import main
from arena.referee.match import hello_id
from arena.store import Database, Match
from tests.cli.test_cli import SAMPLE_BOTS, ok


def moves(record: dict) -> list:
    """Every call and card of a match record, without timings."""
    return [
        (d["hands"], d["calls"], [t["cards"] for t in d["tricks"]])
        for g in record["games"]
        for d in g["deals"]
    ]


def test_hello_ids_are_distinct_repeatable_and_say_nothing_of_the_seed():
    seed = 6_123_456_789_012_345_678
    ids = {(g, e): hello_id(seed, g, e) for g in range(4) for e in range(4)}
    assert len(set(ids.values())) == 16  # one per game and bot
    assert ids == {(g, e): hello_id(seed, g, e) for g in range(4) for e in range(4)}
    assert all(re.fullmatch(r"[0-9a-f]{24}", i) for i in ids.values())
    assert all(str(seed) not in i and f"{seed:x}" not in i for i in ids.values())
    assert hello_id(seed + 1, 0, 0) != ids[0, 0]


def _play_random(arena, seed: int, path: Path) -> dict:
    """The replay record of a 2-game play of four random bots (three sample processes) on
    ``seed``."""
    bot = SAMPLE_BOTS / "random"
    ok(
        arena(
            "play",
            bot,
            bot,
            bot,
            "random",
            "--seed",
            str(seed),
            "--games",
            "2",
            "--deals",
            "2",
            "--quiet",
            "--replay",
            path,
        )
    )
    return json.loads(path.read_text())


def test_a_seeded_play_of_random_bots_repeats_exactly(arena, sandbox, tmp_path):
    records = [_play_random(arena, 9, tmp_path / f"run{run}.json") for run in range(2)]
    assert moves(records[0]) == moves(records[1])
    assert records[0]["totals"] == records[1]["totals"]
    # the bots really draw at random: another seed, other calls and cards
    assert moves(_play_random(arena, 10, tmp_path / "other.json")) != moves(records[0])


def _demo(tmp_path: Path, monkeypatch, name: str, seed: str) -> tuple[str, list[int]]:
    workdir = tmp_path / name
    workdir.mkdir()
    monkeypatch.chdir(workdir)
    out = ok(CliRunner().invoke(main, ["demo", "--deals", "1", "--workers", "2", "--seed", seed]))
    # the samples' validation matches (secret seeds, as every validation's) come first
    tournament = int(re.search(r"Standings of tournament (\d+)", out)[1])
    db = Database(f"sqlite:///{workdir / 'arena.db'}")
    with db.session(read_only=True) as s:
        played = s.query(Match).filter(Match.tournament_id == tournament)
        seeds = [m.seed for m in played.order_by(Match.table_index)]
    standings = out.split(f"Standings of tournament {tournament}", 1)[1]
    return standings.split("See the standings", 1)[0], seeds


def test_a_seeded_demo_repeats_exactly(tmp_path, monkeypatch, sandbox):
    for name in ("ARENA_DATABASE_URL", "ARENA_DATA_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ARENA_SANDBOX_MODE", "bwrap")
    monkeypatch.setenv("COLUMNS", "200")
    samples = tmp_path / "samples"  # the Python samples: no npm install from a test
    for name in ("random", "heuristic"):
        shutil.copytree(SAMPLE_BOTS / name, samples / name)
    monkeypatch.setattr(sys.modules["arena.cli.demo"], "SAMPLES", samples)
    first, seeds = _demo(tmp_path, monkeypatch, "one", "5")
    second, seeds_again = _demo(tmp_path, monkeypatch, "two", "5")
    assert first == second and seeds == seeds_again
    assert "random@1.0.0" in first and "house-heuristic" in first
    _, other_seeds = _demo(tmp_path, monkeypatch, "three", "6")
    assert other_seeds != seeds


def test_a_tournament_seed_never_fixes_its_deals(arena, home):
    """Only the demo derives deals from its seed: two tournaments with one public seed get
    different secret deal seeds."""
    for _ in range(2):
        ok(
            arena(
                "tournament",
                "create",
                "--bots",
                "house:random,house:random#2,house:heuristic,house:heuristic#2",
                "--seed",
                "5",
            )
        )
    db = Database(f"sqlite:///{home / 'arena.db'}")
    with db.session(read_only=True) as s:
        by_tournament = {
            t: [m.seed for m in s.query(Match).filter_by(tournament_id=t)] for t in (1, 2)
        }
    assert by_tournament[1] and not set(by_tournament[1]) & set(by_tournament[2])
