"""``arena replay``: check a saved game or match record against the rules."""

from __future__ import annotations

import json
from pathlib import Path

import click
from sqlalchemy import select

from arena.cli.context import runtime_and_db, user_errors
from arena.game import validate_record
from arena.store import BotVersion, bot_logs, get_match


@click.group()
def replay() -> None:
    """Work with saved game and match records."""


@replay.command("check")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
def check(file: Path) -> None:
    """Re-play FILE from its seed and moves; report the first inconsistency."""
    try:
        record = json.loads(file.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise click.ClickException(f"{file}: not a JSON record ({exc})") from None
    problem = validate_record(record)
    if problem:
        raise click.ClickException(f"{file}: {problem}")
    click.echo(f"{file}: consistent with the rules")


@replay.command("logs")
@click.argument("match_id", type=int)
def logs(match_id: int) -> None:
    """What each process bot of a finished match wrote (the end of it), from the database."""
    with user_errors():
        _, db = runtime_and_db()
        with db.session(read_only=True) as s:
            get_match(s, match_id)
            texts = bot_logs(s, match_id)
            versions = s.scalars(select(BotVersion).where(BotVersion.id.in_(texts)))
            refs = {v.id: v.ref for v in versions}
    if not texts:
        click.echo(f"match {match_id} has no bot logs (not finished, or house bots only)")
    for version_id, text in sorted(texts.items(), key=lambda item: refs[item[0]]):
        click.echo(f"== {refs[version_id]} ==")
        click.echo(text.rstrip("\n") or "(nothing written)")
