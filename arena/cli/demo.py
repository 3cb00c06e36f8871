"""``arena demo``: the whole platform in one command, on the embedded default."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import click
from rich.console import Console

from arena.cli.context import runtime_and_db, unsafe_no_sandbox, user_errors, with_ladder
from arena.cli.render import literal
from arena.cli.setup import prepare_host
from arena.cli.tournaments import print_standings, run_with_progress
from arena.game import RULESETS
from arena.registry import register_bot
from arena.tournaments.create import new_tournament
from arena.tournaments.spec import DEFAULTS, TournamentSpec

SAMPLES = Path(__file__).resolve().parents[2] / "sample_bots"
HOUSE_ENTRANTS = ("house:heuristic", "house:random")


@click.command()
@click.option(
    "--rules", type=click.Choice(sorted(RULESETS)), default=DEFAULTS.rules.name, show_default=True
)
@click.option("--deals", type=click.IntRange(1, 100), help="Deals per game [default: the rules']")
@click.option("--workers", type=click.IntRange(1), help="Worker processes [default: one per core].")
@click.option(
    "--seed",
    type=click.IntRange(0, 2**63 - 1),
    default=1,
    show_default=True,
    help="Seats and deals of the demo: the same seed repeats the same results.",
)
@unsafe_no_sandbox
def demo(rules: str, deals: int | None, workers: int | None, seed: int) -> None:
    """Register the sample bots, run a round robin among them and the house bots, rank them."""
    console = Console()
    prepare_host(console)  # the sandbox, installed if missing and allowed, or a clear error
    with user_errors():
        runtime, db = runtime_and_db()
        refs = []
        for folder in _sample_folders(console):
            with console.status(f"adding {folder.name} (a validation match)..."):
                version = register_bot(db, runtime, folder)
            line = f"bot {version.ref}: {version.status} {version.reason}".rstrip()
            console.print(literal(line), highlight=False)
            if version.status == "valid":
                refs.append(version.ref)
        spec = TournamentSpec.from_options(
            [*refs, *HOUSE_ENTRANTS],
            rules=rules,
            deals=deals,
            seed=seed,
            name=f"demo: sample bots, {rules}, seed {seed}",
            public_deals=True,  # a demo repeats; contests keep their deals secret
        )
        tournament = new_tournament(db, runtime, spec)
        console.print(literal(f"tournament {tournament.id}: {tournament.name}"))
        run_with_progress(db, runtime, tournament.id, workers)
        print_standings(db, tournament.id)
    console.print(
        "See the standings, head-to-head and replays in the dashboard: run [bold]arena dashboard"
        f"[/] and open http://127.0.0.1:8000/tournaments/{tournament.id}"
    )
    with_ladder(db)
    console.print(
        "The sample bots are on the standing ladder too: [bold]arena ladder run[/] plays it "
        "here until Ctrl-C (or until it settles, with --until-settled); "
        "[bold]arena ladder show[/] ranks them"
    )


def _sample_folders(console: Console) -> list[Path]:
    if not SAMPLES.is_dir():
        raise click.ClickException(f"no sample bots at {SAMPLES}: run the demo from a checkout")
    folders = [SAMPLES / "random", SAMPLES / "heuristic"]
    js = SAMPLES / "js_lowcard"
    if not (js / "node_modules").is_dir() and shutil.which("npm"):
        with console.status("installing the JavaScript sample bot's packages (npm ci)..."):
            subprocess.run(["bash", str(js / "setup.sh")], check=False, capture_output=True)
    if (js / "node_modules").is_dir() and shutil.which("node"):
        folders.append(js)
    else:
        console.print("[yellow]skipping js_lowcard: needs node and npm (apt install nodejs npm)[/]")
    return folders
