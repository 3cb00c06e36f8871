"""``arena dashboard``: serve the web dashboard on the CLI's database."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import click

from arena.cli.context import open_database, user_errors, with_ladder
from arena.config import Settings
from arena.sandbox import die_with
from arena.store.ladders import list_ladders

STOP_WAIT_S = 30.0  # for a ladder run to give its matches back
RUN = [sys.executable, "-m", "arena", "ladder", "run"]


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
@click.option(
    "--play-ladder",
    is_flag=True,
    help="Also play every ladder on this machine, in the background (`arena ladder run "
    "--workers 1` each), for a platform without workers: uploads get their matches.",
)
def dashboard(
    host: str, port: int, workers: int, trusted_proxy: str | None, play_ladder: bool
) -> None:
    """Serve rankings, tournaments, bots, replays, accounts and uploads until Ctrl-C.

    Waitress reads every request whole before a thread answers it, so slow or stalled
    clients hold no thread; a request that comes in too slowly is answered 408 and closed
    (the deadlines: README, Dashboard)."""
    from dashboard.serve import bind_problem, bound_server, port_problem  # the web stack

    if problem := port_problem(host, port):  # before anything starts
        raise click.ClickException(problem)
    settings = Settings.from_env()
    with user_errors():
        # migrates the SQLite default (or explains) and opens the front page's ladder
        db = with_ladder(open_database(settings))
        with db.session(read_only=True) as s:
            ladders = [ladder.name for ladder in list_ladders(s)] if play_ladder else []
        db.dispose()
    try:
        server = bound_server(host, port, workers, trusted_proxy)
    except OSError as exc:  # taken since the check: still no ladder run started
        raise click.ClickException(bind_problem(host, port, exc)) from None
    if ladders and settings.broker_configured:
        click.echo("note: a broker is configured, so the workers play the ladders too")
    with ladder_runs(ladders, settings.data_dir):
        click.echo(f"dashboard on http://{host}:{port}/ (Ctrl-C stops it)")
        server.run()


@contextlib.contextmanager
def ladder_runs(names: list[str], data_dir: Path) -> Iterator[None]:
    """``arena ladder run`` for each ladder while the block runs, logging to the data dir;
    stopped with Ctrl-C's signal at the end (their matches given back), and killed with
    this process if it dies first."""
    procs = []
    for name in names:
        log = data_dir / f"ladder-{name}.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        with open(log, "ab") as out:
            procs.append(
                subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "arena",
                        "ladder",
                        "run",
                        "--rules",
                        name,
                        "--workers",
                        "1",
                    ],
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    preexec_fn=die_with(os.getpid()),
                )
            )
        click.echo(f"playing the {name} ladder here (its log: {log})")
    try:
        yield
    finally:
        for proc in procs:
            proc.send_signal(signal.SIGINT)
        for proc in procs:
            try:
                proc.wait(STOP_WAIT_S)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
