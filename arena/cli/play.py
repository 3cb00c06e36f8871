"""``arena play``: one match between four bots, printed deal by deal."""

from __future__ import annotations

import json
import secrets
import tempfile
from collections.abc import Sequence
from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from arena.bots.factory import make_player, protocol_of_player
from arena.bots.package import PackageError, load_package
from arena.bots.process_player import ProcessPlayer
from arena.cli.build import build_here, build_log_path
from arena.cli.context import settings, unsafe_no_sandbox
from arena.cli.render import deal_lines, literal, standings_table, unique_names
from arena.game import RULESETS, Deal
from arena.house.master import cache as master_cache
from arena.house.names import UnknownHouseBot, number_copies
from arena.referee import Clock, MatchResult, MatchSpec, play_match, secret_seed
from arena.sandbox import SandboxError, SandboxPolicy, resolve_mode, sweep_leftovers
from arena.text import plural, printable


@click.command()
@click.argument("bots", nargs=4)
@click.option("--rules", type=click.Choice(sorted(RULESETS)), default="pagat", show_default=True)
@click.option("--deals", type=click.IntRange(1, 100), help="Deals per game [default: the rules']")
@click.option(
    "--games",
    type=click.IntRange(1, 16),
    default=4,
    show_default=True,
    help="Games in the duplicate set (bots rotate one seat per game).",
)
@click.option("--seed", type=int, help="Seed of the deals [default: random, printed].")
@click.option("--decision-ms", type=click.IntRange(1), default=1000, show_default=True)
@click.option(
    "--bank-ms",
    type=click.IntRange(0),
    default=10_000,
    show_default=True,
    help="Time bank per game for overruns.",
)
@click.option(
    "--replay",
    "replay_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the match record (JSON) here.",
)
@click.option(
    "--log-dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Keep each process bot's stdout/stderr here.",
)
@click.option("--quiet", is_flag=True, help="Only the standings, not every deal.")
@click.option(
    "--build/--no-build",
    default=True,
    show_default=True,
    help="Build each bot folder whose bot.toml names a `build` first, on a copy, as the "
    "server does (`arena bot build`); --no-build plays the folders as they are.",
)
@unsafe_no_sandbox
def play(
    bots, rules, deals, games, seed, decision_ms, bank_ms, replay_file, log_dir, quiet, build
) -> None:
    """Play a match between four BOTS: bot directories/zips, house bots (random, heuristic) or
    running Bhoos HTTP bots' URLs (http://host:7000)."""
    ruleset = RULESETS[rules] if deals is None else RULESETS[rules].with_(deals_per_game=deals)
    seed = secret_seed() if seed is None else seed
    log_dir = log_dir or Path(tempfile.mkdtemp(prefix="arena-play-"))
    if build:
        bots = [_built(b, log_dir) for b in bots]
    policy = SandboxPolicy.from_settings(settings())
    sweep_leftovers(policy)  # bots a killed earlier run may have left
    try:
        players = [
            make_player(b, seed=seed + i, policy=policy, log_dir=log_dir, entrant=i)
            for i, b in enumerate(number_copies(list(bots)))
        ]
        if any(isinstance(p, ProcessPlayer) for p in players):
            resolve_mode(policy)  # refuses here, in one line, when there is no sandbox
        _check_protocols(players, ruleset)
        _check_master_cache(players)
    except (PackageError, UnknownHouseBot, SandboxError) as exc:
        raise click.ClickException(str(exc)) from None
    spec = MatchSpec(
        f"play-{secrets.token_hex(4)}", ruleset, seed, games, Clock(decision_ms, bank_ms)
    )
    console = Console()
    shape = f"{plural(games, 'game')} × {plural(ruleset.deals_per_game, 'deal')}"
    console.print(f"Match {spec.match_id}: rules {rules}, {shape}, seed {seed}")
    result = _run(spec, players, console, quiet)
    _report(console, result)
    if result.unsandboxed:
        console.print("[bold red]UNSANDBOXED[/]: process bots ran without bwrap (rlimits only)")
    if any(isinstance(p, ProcessPlayer) for p in players):
        console.print(f"Bot logs: {log_dir}")
    if replay_file:
        replay_file.write_text(json.dumps(result.record))
        console.print(f"Replay written to {replay_file}")
    never_started = sorted({f.entrant for f in result.faults if f.kind == "start_failed"})
    if never_started:
        names = ", ".join(unique_names(result.players)[e] for e in never_started)
        raise click.ClickException(
            printable(f"{names} did not start (forfeited: its seats were auto-played)")
        )


def _built(bot: str, log_dir: Path) -> str:
    """The folder to play for ``bot``: built first, into ``log_dir``, when it names a build."""
    path = Path(bot)
    if not (path / "bot.toml").is_file():
        return bot  # a house bot, a URL, a zip: played as it is
    try:
        package = load_package(path)
    except PackageError as exc:
        raise click.ClickException(str(exc)) from None
    if not package.build:
        return bot
    folder = Path(tempfile.mkdtemp(prefix=f"build-{package.name}-", dir=log_dir)) / "bot"
    seconds = build_here(path, package, folder).seconds
    click.echo(f"built {package.name} in {seconds:.1f} s (its log: {build_log_path(folder)})")
    return str(folder)


def _check_master_cache(players) -> None:
    """A bot running the master's search starts in seconds from its compiled cache and needs
    30-45 s without one, past the start-up allowance: say what to run rather than forfeit."""
    uses = [
        p for p in players if isinstance(p, ProcessPlayer) and master_cache.used_by(p.package.root)
    ]
    if uses and not master_cache.is_built():
        raise click.ClickException(
            f"{uses[0].name} runs the master's search, which is not compiled on this machine "
            "yet (a cold start misses the start-up allowance): run `arena setup` first"
        )


def _check_protocols(players, rules) -> None:
    """A bot whose protocol knows other rules only (a Bhoos HTTP bot: the bhoos rules): say
    so now rather than forfeit it."""
    for p in players:
        protocol = protocol_of_player(p)
        if protocol is not None and (why := protocol.refusal(rules)):
            raise click.ClickException(
                f"{p.name} is a {protocol.title}: {why} (--rules {protocol.rules.name})"
            )


def _run(spec: MatchSpec, players, console: Console, quiet: bool) -> MatchResult:
    names = unique_names([p.name for p in players])
    total = spec.games * spec.rules.deals_per_game
    columns = [
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
    ]
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task("deals", total=total)

        def on_deal(game: int, deal: Deal, seats) -> None:
            if not quiet:
                for line in deal_lines(game, deal, [names[e] for e in seats]):
                    progress.console.print(line, highlight=False)
            progress.advance(task)

        try:
            return play_match(spec, players, on_deal)
        except SandboxError as exc:
            raise click.ClickException(str(exc)) from None


def _report(console: Console, result: MatchResult) -> None:
    names = unique_names(result.players)
    made = [sum(g.calls_made[e] for g in result.games) for e in range(4)]
    deals = sum(g.deals for g in result.games)
    faults = result.fault_counts()
    extra: dict[str, Sequence[object]] = {
        "calls made": [f"{m}/{deals}" for m in made],
        "faults": faults,
        "forfeited": ["yes" if f else "" for f in result.forfeited],
    }
    console.print(standings_table(names, result.totals, extra))
    for fault in result.faults:
        where = (
            "" if fault.game is None else f" (game {fault.game + 1}, deal {(fault.deal or 0) + 1})"
        )
        who, why = literal(names[fault.entrant]), literal(fault.reason)
        console.print(f"[yellow]fault[/] {who} {fault.kind}{where}: {why}", highlight=False)
