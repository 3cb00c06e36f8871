"""``arena ladder``: the standing ladder, shown, played here, paused and tuned."""

from __future__ import annotations

from typing import Any

import click
from rich.console import Console
from rich.table import Table

from arena.challenges.start import unplayed
from arena.cli.context import runtime_and_db, unsafe_no_sandbox, user_errors, with_ladder
from arena.cli.render import literal
from arena.comparisons.play import comparison_matches
from arena.ladders.entrants import DEFAULT_LADDER, change_ladder, open_ladder
from arena.ladders.run import run_ladder
from arena.readmodels.ladder import LadderEntry, LadderView, ladder_names, ladder_view
from arena.store import Database
from arena.store.ladders import get_ladder
from arena.text import plural
from arena.tournaments.spec import TournamentSpec

rules_option = click.option(
    "--rules", "name", default=DEFAULT_LADDER, show_default=True, help="Which ladder (its rules)."
)


@click.group()
def ladder() -> None:
    """The standing ladder: every valid bot's latest version is played and ranked
    without an organiser (one ladder per rules preset; pagat opens by itself)."""


@ladder.command("show")
@rules_option
def show(name: str) -> None:
    """The ranking, the versions being placed, and whether the ladder plays or rests."""
    with user_errors():
        db = with_ladder(runtime_and_db()[1])
        print_ladder(db, name)


@ladder.command("run")
@rules_option
@click.option("--workers", type=click.IntRange(1), help="Worker processes [default: one per core].")
@click.option("--until-settled", is_flag=True, help="Stop once the ladder settles.")
@click.option("--matches", type=click.IntRange(1), help="Stop after this many matches.")
@unsafe_no_sandbox
def run(name: str, workers: int | None, until_settled: bool, matches: int | None) -> None:
    """Play the ladder on this machine until Ctrl-C (matches under way are given back and
    played again by the next run or a worker), and the comparisons and challenges waiting
    between its rounds."""
    with user_errors():
        runtime, db = runtime_and_db()
        with_ladder(db)
        with db.session(read_only=True) as s:
            ladder_id = get_ladder(s, name).id
        console = Console(stderr=True)

        def on_match(status: str, played: int) -> None:
            console.print(f"match {played}: {status}", style="dim" if status == "done" else "")

        def on_idle() -> None:
            console.print(
                "settled or paused: waiting for a new version (Ctrl-C to stop)", style="dim"
            )

        try:
            summary = run_ladder(
                db,
                runtime,
                ladder_id,
                workers,
                on_match,
                until_settled,
                matches,
                on_idle=on_idle,
                also=lambda: comparison_matches(db, runtime) + unplayed(db),
            )
            click.echo(f"{plural(summary.played, 'match')} played")
        except KeyboardInterrupt:
            click.echo("stopped: matches under way were given back")
        print_ladder(db, name)


@ladder.command("open")
@click.option("--rules", "rules", required=True, help="A rules preset (e.g. bhoos).")
@click.option("--deals", type=click.IntRange(1, 100), help="Deals per game [default: the rules'].")
@click.option("--decision-ms", type=click.IntRange(1), help="Per-decision clock.")
@click.option("--bank-ms", type=click.IntRange(0), help="Time bank per game.")
@click.option("--games-per-match", type=click.IntRange(1), help="Games per match [default: 4].")
def open_command(rules: str, **options: Any) -> None:
    """Open another ladder (one per rules preset) with its clock and match length."""
    with user_errors():
        db = with_ladder(runtime_and_db()[1])
        spec = TournamentSpec.from_options(rules=rules, **options)
        open_ladder(db, spec)
        click.echo(f"ladder {spec.rules.name} opened: bots that play its rules enter it")


@ladder.command("pause")
@rules_option
def pause(name: str) -> None:
    """Schedule no new matches (those under way finish)."""
    _set(name, paused=True)


@ladder.command("resume")
@rules_option
def resume(name: str) -> None:
    """Schedule matches again."""
    _set(name, paused=False)


@ladder.command("set")
@rules_option
@click.option("--depth", type=int, help="Matches kept scheduled ahead of the workers.")
@click.option("--matches-per-hour", type=int, help="Cap on matches scheduled an hour (0: none).")
@click.option("--placement-matches", type=int, help="Matches before a new version is ranked.")
@click.option("--settle-half-width", type=float, help="Elo half-width at which it rests.")
def set_command(name: str, **settings: Any) -> None:
    """Tune how the ladder schedules."""
    given = {key: value for key, value in settings.items() if value is not None}
    if not given:
        raise click.UsageError("give at least one setting to change")
    _set(name, **given)


def _set(name: str, **changes: Any) -> None:
    with user_errors():
        db = with_ladder(runtime_and_db()[1])
        change_ladder(db, name, **changes)
        said = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in changes.items())
        click.echo(f"ladder {name}: {said}")


def print_ladder(db: Database, name: str) -> None:
    with db.session(read_only=True) as s:
        view = ladder_view(s, name)
        others = [n for n in ladder_names(s) if n != name]
    console = Console()
    console.print(_headline(view))
    if view.ranked:
        table = Table(box=None, padding=(0, 1, 0, 0), pad_edge=False)
        columns = ("#", "bot", "owner", "Elo", "95% CI", "trend", "games", "matches", "badge")
        for column in columns:
            left = column in ("bot", "owner", "badge")
            table.add_column(column, justify="left" if left else "right")
        for e in view.ranked:
            table.add_row(
                str(e.rank),
                literal(e.ref),
                literal(e.owner),
                f"{e.elo:.0f}",
                f"{e.ci_low:.0f}…{e.ci_high:.0f}",
                _trend(e),
                str(e.games),
                str(e.matches),
                "provisional" if e.provisional else "",
            )
        console.print(table)
        if any(e.provisional for e in view.ranked):
            console.print(
                f"provisional: a 95% interval wider than ±{view.settle_half_width:.0f} Elo, "
                "its place may still move",
                style="dim",
            )
    for e in view.placing:
        console.print(
            f"placing: {literal(e.ref)} ({literal(e.owner)}): "
            f"{min(e.matches, view.placement_matches)} of {view.placement_matches} matches"
        )
    if not view.ranked and not view.placing:
        console.print("no bots yet: upload one (`arena bot add`) and it enters by itself")
    console.print(view.scale, style="dim")
    console.print(f"fair-play audit of its games: arena audit {view.tournament_id}", style="dim")
    if others:
        console.print(f"other ladders: {', '.join(others)} (--rules NAME)", style="dim")


def _headline(view: LadderView) -> str:
    state = {
        "playing": "playing",
        "settled": "settled (every neighbour separated or every interval narrow): "
        "it rests until a version arrives or a bot is retired",
        "paused": "paused by an organiser (`arena ladder resume`)",
        "waiting": "waiting: nothing has played its matches for five minutes (start "
        "`arena ladder run` here, or `arena worker` on a cluster)",
    }[view.state]
    wait = view.wait_s()
    eta = f"; a new version's first match in about {wait / 60:.0f} min" if wait else ""
    return (
        f"Ladder {view.name} ({view.rules} rules): {state}; {plural(view.done, 'match')} "
        f"played, {view.in_flight} scheduled{eta}"
    )


def _trend(e: LadderEntry) -> str:
    return "" if e.trend is None else f"{e.trend:+.0f}"
