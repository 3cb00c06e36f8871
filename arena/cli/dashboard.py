"""``arena dashboard``: serve the web dashboard on the CLI's database."""

from __future__ import annotations

import click

from arena.cli.context import open_database, user_errors, with_ladder
from arena.config import Settings


@click.command("dashboard")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True)
@click.option(
    "--workers",
    type=click.IntRange(1),
    default=8,
    show_default=True,
    help="Threads that answer requests (each only ever gets a request already read whole).",
)
@click.option(
    "--trusted-proxy",
    metavar="ADDRESS",
    help="Believe X-Forwarded-For/-Proto from this front proxy's address ('*': any; only "
    "when nothing else can reach the port).",
)
def dashboard(host: str, port: int, workers: int, trusted_proxy: str | None) -> None:
    """Serve rankings, tournaments, bots, replays, accounts and uploads until Ctrl-C.

    Waitress reads every request whole before a thread answers it, so slow or stalled
    clients hold no thread; a request that comes in too slowly is answered 408 and closed
    (the deadlines: README, Dashboard)."""
    with user_errors():
        # migrates the SQLite default (or explains) and opens the front page's ladder
        with_ladder(open_database(Settings.from_env())).dispose()
    from dashboard.serve import serve  # the web stack loads only for this command

    click.echo(f"dashboard on http://{host}:{port}/ (Ctrl-C stops it)")
    serve(host, port, workers, trusted_proxy)
