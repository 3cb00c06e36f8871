"""``arena bot``: register and list bots."""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from arena.cli.context import runtime_and_db, unsafe_no_sandbox, user_errors
from arena.cli.render import literal
from arena.store import BotVersion, list_bots
from arena.text import plural, printable
from arena.tournaments.registry import register_bot


@click.group()
def bot() -> None:
    """Register and list bots."""


@bot.command("add")
@click.argument("path", type=click.Path(path_type=Path))
@click.option(
    "--no-validate", is_flag=True, help="Trust the bot: mark it valid without a validation match."
)
@unsafe_no_sandbox
def add(path: Path, no_validate: bool) -> None:
    """Store the bot in PATH (a directory or zip with bot.toml) and validate it."""
    with user_errors():
        runtime, db = runtime_and_db()
        with Console().status(f"validating {path} against copies of itself..."):
            version = register_bot(db, runtime, path, validate=not no_validate)
    if version.status == "rejected":
        raise click.ClickException(printable(f"{version.ref} rejected: {version.reason}"))
    click.echo(printable(f"{version.ref} (id {version.id}) is {version.status}"))


@bot.command("list")
def list_command() -> None:
    """Every bot and its versions."""
    with user_errors():
        _, db = runtime_and_db()
        with db.session(read_only=True) as s:
            bots = list_bots(s)
            rows = [
                (v.id, v.ref, v.status, _reason(v), v.manifest.get("language", ""))
                for b in bots
                for v in b.versions
            ]
    table = Table(title="Bots")
    for column in ("id", "bot", "status", "language", "reason"):
        table.add_column(column)
    for vid, ref, status, reason, language in rows:
        cells = (ref, status, language or "", reason[:80])
        table.add_row(str(vid), *map(literal, cells))
    Console().print(table)


def _reason(version: BotVersion) -> str:
    """The verdict's reason, and the rejected uploads this version's files replaced."""
    if not version.rejections:
        return version.reason
    earlier = plural(len(version.rejections), "rejected upload")
    return f"{version.reason} (replaces {earlier}: {version.rejections[-1].reason})".lstrip()
