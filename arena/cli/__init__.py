"""The ``arena`` command."""

from __future__ import annotations

import click

from arena.cli.play import play
from arena.cli.replay import replay


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """Callbreak Master: run, rate and replay Callbreak bots."""


main.add_command(play)
main.add_command(replay)
