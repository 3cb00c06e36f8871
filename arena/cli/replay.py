"""``arena replay``: check a saved game or match record against the rules."""

from __future__ import annotations

import json
from pathlib import Path

import click

from arena.game import validate_record


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
