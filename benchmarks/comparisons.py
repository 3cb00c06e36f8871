"""How many matches a comparison needs for its verdict, and how long it takes, for the
versions a contestant uploads: a clearly worse one, one that crashes on about 6 % of its
decisions, a clearly better one, and the same bot again.

Real bots (the sample bots, in the bwrap sandbox) on a private SQLite, played here by
``arena.comparisons.play`` (what ``arena bot compare`` runs) on the pagat ladder's rules
(``--deals`` deals a game, 4 games a match); the test's bounds are the defaults (δ = 0.5
points a deal, α = β = 0.05, ``--pairs`` pairs at most). Prints one row per case: verdict,
pairs and matches played, Δ points a deal ± 95 % interval, pair Elo, faults, seconds. Run:
python benchmarks/comparisons.py [--deals 5] [--pairs 40] [--workers 2]
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

from arena.comparisons.play import play_comparison
from arena.comparisons.start import start_comparison
from arena.config import Settings
from arena.ladders.entrants import open_ladder
from arena.ratings.sprt import Bounds
from arena.readmodels.comparisons import comparison_view
from arena.registry import register_bot
from arena.runtime import Runtime
from arena.store import Database, upgrade
from arena.store.models import Comparison
from arena.tournaments.spec import TournamentSpec

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_bots"
CRASH = """
import os, random
_rng = random.Random(os.getpid())
_play = Heuristic.play
def _crashing(self, obs):
    if _rng.random() < 0.06:
        raise RuntimeError("a bug on about 6% of decisions")
    return _play(self, obs)
Heuristic.play = _crashing
"""
CASES = (  # (case, baseline's sample bot, candidate's, candidate crashes)
    ("worse (heuristic -> random)", "heuristic", "random", False),
    ("crashes 6% (heuristic -> heuristic + bug)", "heuristic", "heuristic", True),
    ("better (random -> heuristic)", "random", "heuristic", False),
    ("the same (heuristic -> heuristic)", "heuristic", "heuristic", False),
)


def version(folder: Path, name: str, source: str, number: str, crashes: bool) -> Path:
    shutil.copytree(SAMPLES / source, folder, ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "bot.toml").write_text(
        f'name = "{name}"\nversion = "{number}"\ncommand = ["python3", "bot.py"]\n'
    )
    if crashes:
        bot = folder / "bot.py"
        text = bot.read_text()
        bot.write_text(
            text.replace('if __name__ == "__main__":', CRASH + '\nif __name__ == "__main__":')
        )
    return folder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=5)
    parser.add_argument("--pairs", type=int, default=40)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="arena-cmp-") as tmp:
        root = Path(tmp)
        url = f"sqlite:///{root / 'arena.db'}"
        upgrade(url)
        db = Database(url)
        runtime = Runtime(Settings(url, root / "data", ""))
        open_ladder(db, TournamentSpec.from_options(rules="pagat", deals=args.deals))
        print(f"pagat, {args.deals} deals a game, 4 games a match, at most {args.pairs} pairs")
        print(
            f"{'case':44} {'verdict':14} {'pairs':>5} {'matches':>7} {'delta':>14} "
            f"{'pair Elo':>11} {'faults':>7} {'seconds':>8}"
        )
        for n, (case, old, new, crashes) in enumerate(CASES):
            name = f"case{n}"
            register_bot(
                db, runtime, version(root / f"{name}-1", name, old, "1", False), validate=False
            )
            register_bot(
                db, runtime, version(root / f"{name}-2", name, new, "2", crashes), validate=False
            )
            started = time.monotonic()
            comparison_id = start_comparison(
                db, runtime, f"{name}@1", f"{name}@2", bounds=Bounds(cap=args.pairs)
            )
            play_comparison(db, runtime, comparison_id, args.workers)
            seconds = time.monotonic() - started
            with db.session(read_only=True) as s:
                view = comparison_view(s, s.get_one(Comparison, comparison_id))
            delta = f"{view.delta:+.2f} ± {view.half_width or 0:.2f}"
            elo = f"{view.elo:+.0f} ± {view.elo_half_width:.0f}"
            faults = view.faults.get(f"{name}@2", 0)
            print(
                f"{case:44} {view.verdict:14} {view.pairs:>5} {view.matches:>7} {delta:>14} "
                f"{elo:>11} {faults:>7} {seconds:>8.1f}"
            )
        db.dispose()


if __name__ == "__main__":
    main()
