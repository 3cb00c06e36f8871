"""``arena replay``: check a saved record; ask a bot again a decision exported from a replay."""

from __future__ import annotations

import json
from pathlib import Path

import click
from sqlalchemy import select

from arena.bots.factory import make_player
from arena.bots.player import BotFault
from arena.cli.context import runtime_and_db, user_errors
from arena.game import validate_record
from arena.referee.moves import checked
from arena.store import BotVersion, bot_logs, get_match
from arena.text import printable
from arena.views.decision import load_decision


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


@replay.command("decision")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--bot",
    "bot",
    required=True,
    help="A bot directory or zip (run in the sandbox), or a house bot name.",
)
def decision(file: Path, bot: str) -> None:
    """Ask BOT the decision exported in FILE (from the dashboard's replay viewer); print its
    answer and whether it is legal."""
    try:
        loaded = load_decision(json.loads(file.read_text()))
    except (json.JSONDecodeError, UnicodeDecodeError, ValueError) as exc:
        raise click.ClickException(f"{file}: {exc}") from None
    request = loaded.request
    with user_errors():
        player = make_player(bot)
    try:
        player.start(loaded.info, loaded.startup_ms / 1000)
        raw = player.decide(request, request.decision_ms / 1000)
        move = checked(request.kind, raw, request.observation)
    except BotFault as exc:
        raise click.ClickException(f"{player.name} failed: {exc.kind}: {exc.reason}") from None
    finally:
        player.close()
    what = "call" if request.kind == "call" else "card"
    click.echo(f"decision {request.id} ({request.kind}), {player.name} answers: {what} {move}")


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
        lines = text.rstrip("\n").split("\n")  # a bot wrote it: no control characters
        click.echo("\n".join(printable(line) for line in lines) or "(nothing written)")
