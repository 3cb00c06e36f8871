"""The ``arena`` command."""

from __future__ import annotations

import click

from arena.cli.analyse import analyse_command, analysis_job
from arena.cli.audit import audit_command
from arena.cli.bots import bot
from arena.cli.build import build_command, runtimes_command
from arena.cli.dashboard import dashboard
from arena.cli.db import db
from arena.cli.demo import demo
from arena.cli.export import export_command
from arena.cli.ladder import ladder
from arena.cli.play import play
from arena.cli.replay import replay
from arena.cli.setup import setup
from arena.cli.tournaments import standings_command, tournament
from arena.cli.users import user
from arena.cli.versions import compare_command, current_command, promotion_command
from arena.cli.worker import beat, worker


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """Callbreak Master: run, rate and replay Callbreak bots."""


def _full_short_help(command: click.Command) -> None:
    """List every command with its whole first paragraph (click cuts it at 45 characters)."""
    if command.help and not command.short_help:
        command.short_help = " ".join(command.help.split("\n\n")[0].split())
    for sub in getattr(command, "commands", {}).values():
        _full_short_help(sub)


COMMANDS = (
    demo,
    setup,
    play,
    replay,
    export_command,
    analyse_command,
    analysis_job,
    bot,
    runtimes_command,
    tournament,
    ladder,
    standings_command,
    audit_command,
    user,
    db,
    dashboard,
    worker,
    beat,
)
bot.add_command(build_command)
for command in (compare_command, current_command, promotion_command):
    bot.add_command(command)
for command in COMMANDS:
    main.add_command(command)
_full_short_help(main)
