"""``arena tournament`` and ``arena standings``."""

from __future__ import annotations

import contextlib
import math
import signal
from collections.abc import Callable, Iterator
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import click
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table

from arena.cli.context import runtime_and_db, unsafe_no_sandbox, user_errors
from arena.cli.render import literal
from arena.game import RULESETS
from arena.ratings import MODELS
from arena.runtime import Runtime
from arena.store import (
    Database,
    get_tournament,
    list_tournaments,
    progress,
    retry_failed,
    unsandboxed_count,
)
from arena.store.models import utcnow
from arena.store.tournaments import plain_tournament
from arena.text import plural, printable
from arena.tournaments.create import new_tournament
from arena.tournaments.executor import run_tournament
from arena.tournaments.extend import extend_tournament
from arena.tournaments.spec import DEFAULTS, TournamentSpec
from arena.tournaments.stalls import Stalls, stalled_matches
from arena.tournaments.standings import model_for, scale_note, separated, standings


@click.group()
def tournament() -> None:
    """Create and run round-robin tournaments."""


@tournament.command("create")
@click.option(
    "--bots",
    "bots",
    multiple=True,
    help="Bots to enter: name, name@version or id; repeat or separate with commas.",
)
@click.option(
    "--rules", type=click.Choice(sorted(RULESETS)), default=DEFAULTS.rules.name, show_default=True
)
@click.option("--deals", type=click.IntRange(1, 100), help="Deals per game [default: the rules']")
@click.option(
    "--games-per-match",
    type=click.IntRange(1, 16),
    default=DEFAULTS.games_per_match,
    show_default=True,
)
@click.option("--seed", type=int, help="Tournament seed [default: random].")
@click.option("--tables", type=click.IntRange(1), help="Number of tables [default: automatic].")
@click.option(
    "--decision-ms", type=click.IntRange(1), default=DEFAULTS.clock.decision_ms, show_default=True
)
@click.option(
    "--bank-ms", type=click.IntRange(0), default=DEFAULTS.clock.bank_ms, show_default=True
)
@click.option(
    "--name", default=DEFAULTS.name, help="A name to show [default: Tournament N (the settings)]."
)
@click.option(
    "--rating-model",
    type=click.Choice(sorted(MODELS)),
    default=DEFAULTS.rating_model,
    show_default=True,
    help="How standings are fitted: point margins, or the order of game totals.",
)
@click.option(
    "--extra-matches",
    type=click.IntRange(0),
    default=DEFAULTS.adaptive_matches,
    show_default=True,
    help="Adaptive matches to add, a round at a time, once the scheduled ones are played: "
    "on neighbours whose Elo intervals overlap most.",
)
@click.option(
    "--top", type=click.IntRange(2), help="With --extra-matches: separate these places only."
)
@click.option(
    "--allow-same-owner",
    is_flag=True,
    help="Let two bots of one owner (or two versions of one bot) share a table; by default "
    "they never do.",
)
def create(bots: tuple[str, ...], **options: Any) -> None:
    """Schedule a tournament and print its id."""
    refs = [ref.strip() for item in bots for ref in item.split(",") if ref.strip()]
    with user_errors():
        runtime, db = runtime_and_db()
        t = new_tournament(db, runtime, TournamentSpec.from_options(refs, **options))
    click.echo(printable(f"tournament {t.id}: {t.name}"))


@tournament.command("extend")
@click.argument("tournament_id", type=int)
@click.option("--matches", type=click.IntRange(1), required=True, help="How many to add.")
@click.option("--top", type=click.IntRange(2), help="Separate these places only [default: all].")
def extend(tournament_id: int, matches: int, top: int | None) -> None:
    """Add matches where the ranking is unsure: tables of neighbours whose Elo intervals
    overlap most, seats balanced. Play them with `arena tournament run`."""
    with user_errors():
        _, db = runtime_and_db()
        added = extend_tournament(db, tournament_id, matches, top)
    click.echo(
        f"tournament {tournament_id}: {len(added)} matches added; "
        f"play them with `arena tournament run {tournament_id}`"
    )


@tournament.command("run")
@click.argument("tournament_id", type=int)
@click.option("--workers", type=click.IntRange(1), help="Worker processes [default: one per core].")
@click.option(
    "--backend",
    type=click.Choice(["embedded", "celery"]),
    default="embedded",
    show_default=True,
    help="Play here, or send the matches to `arena worker`s (ARENA_BROKER_URL).",
)
@click.option("--detach", is_flag=True, help="With --backend celery: send and return at once.")
@unsafe_no_sandbox
def run(tournament_id: int, workers: int | None, backend: str, detach: bool) -> None:
    """Play the tournament's matches that are not done yet (safe to re-run after a stop)."""
    with user_errors():
        runtime, db = runtime_and_db()
        with db.session(read_only=True) as s:
            plain_tournament(s, tournament_id)
        if backend == "embedded":
            run_with_progress(db, runtime, tournament_id, workers)
        elif not follow_celery(db, runtime, tournament_id, detach):
            return
        print_standings(db, tournament_id)


def follow_celery(db: Database, runtime: Runtime, tournament_id: int, detach: bool) -> bool:
    """Send the matches not yet sent, then (unless detached) show progress until done."""
    from workers.client.consumers import QueueWatch  # only for this backend
    from workers.client.matches import broker_problem, follow, send_matches

    if problem := broker_problem():
        raise click.ClickException(problem)
    sent = send_matches(db, tournament_id)
    click.echo(f"tournament {tournament_id}: {plural(sent, 'match')} sent to the workers")
    QueueWatch(_warn(Console(stderr=True))).check()  # jobs no worker will take
    if detach:
        click.echo(
            f"the workers finish it (with `arena beat` running, lost matches are sent again); "
            f"follow it with `arena tournament run {tournament_id} --backend celery`"
        )
        return False
    with progress_bar(tournament_id) as (bar, task):
        queues = QueueWatch(_warn(bar.console))

        def on_progress(state: dict[str, int]) -> None:
            finished = state["done"] + state["failed"]
            bar.update(task, completed=finished, total=sum(state.values()))
            queues.check()  # every 15 s: queues with jobs waiting and no worker

        def on_trouble(warning: str | None) -> None:
            if warning is None:
                bar.console.print("the database answers again")
            else:
                bar.console.print(f"[yellow]warning:[/] {warning}")
            bar.update(task, note="database unreachable" if warning else "")

        try:
            lease_s = runtime.settings.lease_s
            state = follow(db, tournament_id, lease_s, on_progress, on_trouble)
        except KeyboardInterrupt:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            raise click.ClickException(
                f"stopped following (the workers go on): run `arena tournament run "
                f"{tournament_id} --backend celery` to follow it again"
            ) from None
    report_counts(tournament_id, state)
    return True


def _warn(console: Console) -> Callable[[str, bool], None]:
    def say(text: str, warning: bool) -> None:
        console.print(f"[yellow]warning:[/] {escape(text)}" if warning else escape(text))

    return say


@contextlib.contextmanager
def progress_bar(tournament_id: int) -> Iterator[tuple[Progress, TaskID]]:
    columns = [
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[note]}"),
        TimeElapsedColumn(),
    ]
    with Progress(*columns) as bar:
        yield bar, bar.add_task(f"tournament {tournament_id}", total=None, note="")


def report_counts(tournament_id: int, status: dict[str, int]) -> None:
    console = Console()
    counts = ", ".join(f"{v} {k}" for k, v in sorted(status.items()) if v)
    console.print(f"tournament {tournament_id}: {counts}")
    if status.get("failed"):
        console.print(
            "[yellow]some matches failed (a platform error; see `arena tournament list`); "
            f"`arena tournament retry-failed {tournament_id}` puts them back[/]"
        )


def run_with_progress(
    db: Database, runtime: Runtime, tournament_id: int, workers: int | None
) -> None:
    with progress_bar(tournament_id) as (bar, task):

        def on_match(status: str, done: int, total: int) -> None:
            bar.update(task, completed=done, total=total, note=status)

        try:
            summary = run_tournament(db, runtime, tournament_id, workers, on_match)
        except KeyboardInterrupt:
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # stopping already: more presses wait
            raise click.ClickException(
                f"stopped: run `arena tournament run {tournament_id}` again to finish it"
            ) from None
        except BrokenProcessPool:
            raise click.ClickException(
                f"a worker process died; run `arena tournament run {tournament_id}` again to finish"
            ) from None
    report_counts(tournament_id, summary.status)


@tournament.command("retry-failed")
@click.argument("tournament_id", type=int)
def retry_failed_command(tournament_id: int) -> None:
    """Put the tournament's failed matches back to play (then run it again)."""
    with user_errors():
        _, db = runtime_and_db()
        with db.session() as s:
            get_tournament(s, tournament_id)
            count = retry_failed(s, tournament_id)
    click.echo(f"tournament {tournament_id}: {plural(count, 'failed match')} put back to play")


@tournament.command("list")
def list_command() -> None:
    """Every tournament, newest first: id, name, status, progress, created, and its matches
    that do not move (running with an expired lease; sent a lease ago or more and waiting in
    a queue no worker takes)."""
    with user_errors():
        runtime, db = runtime_and_db()
        with db.session(read_only=True) as s:
            rows = [(t, progress(s, t.id)) for t in list_tournaments(s)]
            stalls = stalled_matches(s, utcnow(), runtime.settings.lease_s)
    if not rows:
        click.echo("no tournaments yet: create one with `arena tournament create`")
        return
    served = _consumed_queues(stalls)
    table = Table(box=None, padding=(0, 1, 0, 0), pad_edge=False)
    for column in ("id", "name", "status", "progress", "created", "stalled"):
        table.add_column(column, no_wrap=column not in ("name", "stalled"))
    for t, state in rows:
        total = sum(state.values())
        failed = f", {state['failed']} failed" if state["failed"] else ""
        created = f"{t.created_at:%Y-%m-%d %H:%M}"
        stalled = _stalled_text(stalls.get(t.id), served)
        table.add_row(
            str(t.id),
            literal(t.name),
            t.status,
            f"{state['done']}/{total}{failed}",
            created,
            f"[yellow]{escape(stalled)}[/]" if stalled else "",
        )
    Console().print(table)
    if any(_stalled_text(stall, served) for stall in stalls.values()):
        Console().print(
            "stalled: an expired lease means a lost worker (its match is sent again by the "
            "recovery: `arena beat`, or a follower, `arena tournament run ID --backend "
            "celery`); a queue no worker takes needs `arena worker --queues NAME`",
            style="dim",
        )


def _consumed_queues(stalls: dict[int, Stalls]) -> set[str] | None:
    """The queues workers take, asked only when matches wait in some (None: not known)."""
    if not any(stall.waiting for stall in stalls.values()):
        return None
    from workers.client.consumers import consumed_queues  # the broker only when it matters

    return consumed_queues()


def _stalled_text(stall: Stalls | None, served: set[str] | None) -> str:
    """What does not move in one tournament; a deep but served queue is not stalled."""
    if not stall:
        return ""
    parts = [f"{stall.expired} running with an expired lease"] if stall.expired else []
    for queue, count in stall.waiting.items():
        if served is None:
            parts.append(f"{count} waiting in {queue} (no answer from the workers)")
        elif queue not in served:
            parts.append(f"{count} waiting in {queue}, which no worker takes")
    return "; ".join(parts)


@click.command("standings")
@click.argument("tournament_id", type=int)
def standings_command(tournament_id: int) -> None:
    """Ratings with 95% intervals, points per deal, calls made and faults."""
    with user_errors():
        _, db = runtime_and_db()
        print_standings(db, tournament_id)


COLUMNS = ("Elo", "Elo 95% CI", "games", "pts/deal", "pts/deal 95% CI", "calls made", "faults")
TIE = "≈"  # as the pages mark a rank whose interval overlaps the one above
LEGEND = (
    "games: games played; pts/deal: mean points per deal; calls made: share of its calls "
    "(one per deal) the bot made; faults: strikes (timeouts, illegal moves, crashes); "
    f"{TIE} marks a rank whose Elo interval overlaps the one above: the data do not "
    "separate them"
)


def print_standings(db: Database, tournament_id: int) -> None:
    rows = standings(db, tournament_id)
    if not rows:
        Console().print(f"tournament {tournament_id} has no finished games yet")
        return
    table = Table(
        title=f"Standings of tournament {tournament_id}",
        box=None,
        padding=(0, 1, 0, 0),
        pad_edge=False,
    )
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("bot", no_wrap=True)
    for column in COLUMNS:
        table.add_column(column, justify="right")  # a header may wrap, never a number
    for rank, row in enumerate(rows, 1):
        r, st = row.rating, row.stats
        above = rows[rank - 2] if rank > 1 else None
        table.add_row(
            f"{rank}{'' if separated(row, above) else TIE}",
            literal(row.ref),
            f"{r.elo:.0f}",
            _interval(r.ci_low, r.ci_high, 0),
            str(r.games),
            f"{st.mean_points_per_deal:+.2f}",
            _interval(st.ci_low, st.ci_high, 2),
            _percent(st.call_success_rate),
            str(st.faults),
        )
    with db.session(read_only=True) as s:
        model = model_for(s, tournament_id)
        unsafe = unsandboxed_count(s, tournament_id)
    Console().print(table)
    Console().print(scale_note(model, tournament_id), style="dim")
    Console().print(LEGEND, style="dim")
    if unsafe:
        Console().print(
            f"[bold red]UNSANDBOXED[/]: {unsafe} match(es) ran bots without bwrap "
            "(--unsafe-no-sandbox); do not publish these standings as a fair contest"
        )


def _interval(low: float, high: float, digits: int) -> str:
    return f"{_number(low, digits)}…{_number(high, digits)}"


def _number(x: float, digits: int) -> str:
    if math.isnan(x):
        return "?"
    if math.isinf(x):
        return "∞" if x > 0 else "-∞"
    return f"{x:.{digits}f}"


def _percent(x: float) -> str:
    return "–" if math.isnan(x) else f"{100 * x:.0f}%"
