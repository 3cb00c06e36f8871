"""``arena export``: finished matches as JSON lines, for training bots on match data (the
rows and their rules: ``arena.readmodels.export``, docs/export.md)."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from datetime import datetime
from typing import IO

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from arena.cli.context import runtime_and_db, user_errors
from arena.readmodels import export as rows
from arena.text import plural


def _since(ctx: click.Context, param: click.Parameter, value: str | None) -> datetime | None:
    try:
        return None if value is None else rows.parse_since(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc).removeprefix("since must be ")) from None


def _everyone(owner_id: int | None) -> bool:
    return True


@click.command("export")
@click.option("--bot", metavar="NAME[@VERSION]", help="Only its matches (any version, or one).")
@click.option("--ladder", metavar="RULES", help="Only this standing ladder's matches (e.g. pagat).")
@click.option("--tournament", type=int, metavar="ID", help="Only this tournament's matches.")
@click.option(
    "--since",
    metavar="DATE",
    callback=_since,
    help="Only matches finished at or after DATE (YYYY-MM-DD or an ISO time; UTC unless "
    "it gives an offset).",
)
@click.option("--decisions", is_flag=True, help="One row per decision of --bot instead.")
@click.option(
    "--logs",
    is_flag=True,
    help="Add each seat's stored log to match rows (the operator reads every bot's).",
)
@click.option(
    "--out",
    required=True,
    type=click.Path(dir_okay=False, allow_dash=True),
    metavar="FILE",
    help="Where to write the lines (- for stdout; a file gets a progress bar on stderr).",
)
def export_command(
    bot: str | None,
    ladder: str | None,
    tournament: int | None,
    since: datetime | None,
    decisions: bool,
    logs: bool,
    out: str,
) -> None:
    """Write finished matches as JSON lines: one match a line (its public record without
    seeds, with its tournament, ladder, seats as name@version and finish time), or with
    --decisions one line per decision of --bot (observation, legal moves, action, the deal's
    points).

    Filters combine; matches come oldest first. 10,000 matches of 4 games x 5 deals (540
    MiB) took 36 to 61 s on a shared 2-core machine, memory flat (benchmarks/export.py;
    docs/export.md).
    """
    if decisions and not bot:
        raise click.UsageError("--decisions exports one bot's decisions: name it with --bot")
    query = rows.ExportQuery(bot, ladder, tournament, since, decisions)
    with user_errors():
        _, db = runtime_and_db()
        with db.session(read_only=True) as s:
            plan = rows.plan(s, query)
            total = rows.match_count(s, plan)
        access = _everyone if logs else rows.no_logs
        if out == "-":
            with _stdout() as stream:
                for text in rows.lines(db, plan, access):
                    stream.write(text)
            return
        written = 0
        with open(out, "w", encoding="utf-8") as stream, _bar() as bar:
            task = bar.add_task("matches", total=total)
            for batch in rows.batches(db, plan, access):
                written += _write(stream, batch)
                bar.advance(task)
    what = f"{plural(written, 'decision')} of " if decisions else ""
    click.echo(f"{what}{plural(total, 'match')} written to {out}", err=True)


def _write(stream: IO[str], batch: list[dict]) -> int:
    for row in batch:
        stream.write(rows.json_line(row))
    return len(batch)


def _bar() -> Progress:
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
    return Progress(*columns, TimeElapsedColumn(), console=Console(stderr=True), transient=True)


@contextlib.contextmanager
def _stdout() -> Iterator[IO[str]]:
    """Standard output; a reader that stops early (``| head``) ends the export quietly."""
    stream = click.get_text_stream("stdout")
    try:
        yield stream
        stream.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no error at exit
