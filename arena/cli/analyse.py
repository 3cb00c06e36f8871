"""``arena analyse``: the master's verdict on every decision of a finished match's entrants,
worked out here (in this process, with a progress bar) and printed as a summary; ``arena
analysis-job``, the process a dashboard without a broker starts for one analysis; and the
verdicts beside ``arena replay show --analysis``."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import click
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table

from arena import analysis_runs
from arena.analysis import DEFAULT_SAMPLES, LABELS, Analysis, Verdict
from arena.cli.context import runtime_and_db, user_errors
from arena.cli.render import literal
from arena.store import Database, MatchAnalysis, get_match, version_refs
from arena.store.analyses import analyses_of
from arena.tournaments.executor import worker_name

WORST = 5  # decisions listed per entrant, the costliest first


@click.command("analyse")
@click.argument("match_id", type=int)
@click.option(
    "--entrant",
    type=click.IntRange(0, 3),
    help="Only this entrant (0-3) [default: every entrant that is not a house bot].",
)
@click.option(
    "--samples",
    type=int,
    default=DEFAULT_SAMPLES,
    show_default=True,
    help=f"Sampled deals per decision: a multiple of 32 from {analysis_runs.MIN_SAMPLES} "
    f"to {analysis_runs.MAX_SAMPLES}; more is slower and surer.",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the samples.")
def analyse_command(match_id: int, entrant: int | None, samples: int, seed: int) -> None:
    """Have the master judge every decision of the finished match MATCH_ID: the points each
    move lost against the best option, from what the seat saw. Worked out here, in this
    process (an analysis stored before is shown at once); prints each entrant's mean loss
    per decision, its labels and its costliest decisions."""
    with user_errors():
        runtime, db = runtime_and_db()
        entrants = [entrant] if entrant is not None else analysis_runs.contestants(db, match_id)
        if not entrants:
            raise click.ClickException(
                f"match {match_id} has only house bots: name one with --entrant"
            )
        rows = [analysis_runs.request(db, match_id, e, samples, seed=seed) for e in entrants]
        with _bar() as bar:
            for row in rows:
                task = bar.add_task(f"entrant {row.entrant}", total=None)

                def advance(done: int, total: int, task: TaskID = task) -> None:
                    bar.update(task, completed=done, total=total)

                analysis_runs.work_out(db, row.id, worker_name(), runtime.settings, advance)
        print_summary(Console(), db, [row.id for row in rows])


def _bar() -> Progress:
    columns = [TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn()]
    return Progress(*columns, TimeElapsedColumn(), transient=True)


@click.command("analysis-job", hidden=True)
@click.argument("analysis_id", type=int)
def analysis_job(analysis_id: int) -> None:
    """Work out one requested analysis (the dashboard starts it when no broker is set)."""
    with user_errors():
        runtime, db = runtime_and_db()
        status = analysis_runs.work_out(db, analysis_id, worker_name(), runtime.settings)
    click.echo(f"analysis {analysis_id}: {status}")


def print_summary(console: Console, db: Database, analysis_ids: Sequence[int]) -> None:
    """Per entrant: its mean loss per decision (calls, cards), labels and costliest
    decisions; a failed analysis with its reason (and exit status 1)."""
    with db.session(read_only=True) as s:
        rows = [s.get_one(MatchAnalysis, i) for i in analysis_ids]
        done = {row.id: Analysis.from_dict(row.result) for row in rows if row.result is not None}
        refs = version_refs(s, [row.bot_version_id for row in rows])
    table = Table(title=f"Analysis of match {rows[0].match_id} (loss in points per decision)")
    for column in ("entrant", "bot", "decisions", "mean loss", "calls", "cards", *LABELS):
        table.add_column(column, justify="left" if column == "bot" else "right")
    for row in rows:
        if row.id in done:
            table.add_row(*_summary_cells(row, refs[row.bot_version_id]))
    console.print(table)
    for row in rows:
        if row.id in done:
            console.print(_worst(done[row.id], refs[row.bot_version_id]))
    failed = [row for row in rows if row.id not in done]
    for row in failed:
        console.print(f"[red]entrant {row.entrant}: {literal(row.reason or row.status)}[/]")
    if failed:
        raise click.exceptions.Exit(1)


def _summary_cells(row: MatchAnalysis, ref: str) -> list[str]:
    mean = "-" if row.mean_loss is None else f"{row.mean_loss:.3f}"
    if row.mean_loss_se is not None:
        mean += f" ±{row.mean_loss_se:.3f}"
    labels = (row.inaccuracies, row.mistakes, row.blunders)
    return [
        str(row.entrant),
        literal(ref),
        str(row.decisions),
        mean,
        _points(row.call_loss),
        _points(row.card_loss),
        *map(str, labels),
    ]


def _points(loss: float | None) -> str:
    return "-" if loss is None else f"{loss:.3f}"


def _worst(analysis: Analysis, ref: str) -> Table:
    """The entrant's costliest decisions (those that count)."""
    worst = sorted((v for v in analysis.verdicts if v.counts), key=lambda v: -v.loss)[:WORST]
    table = verdict_table(f"Costliest decisions of {literal(ref)} (entrant {analysis.entrant})")
    for v in worst:
        table.add_row(str(v.game + 1), str(v.deal + 1), *_verdict_cells(v))
    return table


def verdict_table(title: str, place: bool = True) -> Table:
    table = Table(title=title)
    for column in (("game", "deal") if place else ()) + ("step", "kind", "chosen", "best"):
        table.add_column(column, justify="right" if column in ("game", "deal", "step") else "left")
    table.add_column("loss", justify="right")
    table.add_column("label")
    return table


def _verdict_cells(v: Verdict) -> list[str]:
    loss = f"{v.loss:.3f} ±{v.loss_se:.3f}" if v.options else "forced"
    label = "referee's move" if v.auto else (v.label or "")
    return [str(v.step), v.kind, v.chosen, v.best, loss, label]


Verdicts = dict[tuple[int, int], list[tuple[int, int, list[Verdict]]]]


def stored_verdicts(db: Database, match_id: int) -> Verdicts:
    """The verdicts of the match's finished analyses by (game, deal): (entrant, samples,
    verdicts) for each entrant analysed (its analysis with the most samples)."""
    with db.session(read_only=True) as s:
        get_match(s, match_id)
        rows = analyses_of(s, match_id)
        done = [Analysis.from_dict(row.result) for row in rows if row.result is not None]
    best = {a.entrant: a for a in sorted(done, key=lambda a: a.samples)}  # the most samples
    found: Verdicts = defaultdict(list)
    for analysis in sorted(best.values(), key=lambda a: a.entrant):
        by_deal: dict[tuple[int, int], list[Verdict]] = defaultdict(list)
        for v in analysis.verdicts:
            by_deal[v.game, v.deal].append(v)
        for place, verdicts in by_deal.items():
            found[place].append((analysis.entrant, analysis.samples, verdicts))
    return found


def print_verdicts(
    console: Console, verdicts: Verdicts, game: int, deal: int, names: Sequence[str]
) -> None:
    """The verdicts on one deal's decisions, one table per analysed entrant."""
    for entrant, samples, judged in verdicts.get((game, deal), []):
        who = literal(names[entrant])
        table = verdict_table(f"The master on {who} ({samples} samples)", False)
        for v in judged:
            table.add_row(*_verdict_cells(v))
        console.print(table)
