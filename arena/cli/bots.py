"""``arena bot``: register, list and retire bots here, or submit one to a server."""

from __future__ import annotations

import time
from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TransferSpeedColumn
from rich.table import Table

from arena.cli.api_client import ApiError, Client, find_token
from arena.cli.context import runtime_and_db, unsafe_no_sandbox, user_errors
from arena.cli.render import literal
from arena.registry import archive_of, free_rejected, inspect_archive, register_bot
from arena.store import Bot, BotVersion, list_bots, owners_of
from arena.submissions import set_retired
from arena.text import plural, printable

POLL_S = 1.0
LOG_LINES = 20  # of the build and validation logs, shown when a submitted bot is rejected


@click.group()
def bot() -> None:
    """Register, list and retire bots, or submit one to a server."""


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
        with Console().status(f"validating {path} in a game among house bots..."):
            version = register_bot(db, runtime, path, validate=not no_validate)
    if version.status == "rejected":
        raise click.ClickException(printable(f"{version.ref} rejected: {version.reason}"))
    click.echo(printable(f"{version.ref} (id {version.id}) is {version.status}"))


LIST_COLUMNS = ("bot id", "bot", "version", "version id", "owner", "status", "language", "reason")
LIST_LEGEND = (
    "bot id: the bot's, as its page takes it (/bots/ID, /api/v1/bots/ID); version id: one "
    "version's (/api/v1/versions/ID). --bots takes a bot's name (its latest valid version), "
    "NAME@VERSION or a version id; retire and restore take the name."
)


@bot.command("list")
def list_command() -> None:
    """Every bot and its versions, with both ids: the bot's and each version's."""
    with user_errors():
        _, db = runtime_and_db()
        with db.session(read_only=True) as s:
            bots = list_bots(s)
            owners = owners_of(s, [b.id for b in bots])
            rows = [
                (
                    str(b.id),
                    b.name,
                    v.version,
                    str(v.id),
                    owners[b.id],
                    _status(b, v),
                    v.manifest.get("language") or "",
                    _reason(v)[:80],
                )
                for b in bots
                for v in b.versions
            ]
    table = Table(title="Bots")
    for column in LIST_COLUMNS:
        table.add_column(column)
    for row in rows:
        table.add_row(*map(literal, row))
    console = Console()
    console.print(table)
    console.print(LIST_LEGEND, style="dim")


def _status(bot: Bot, version: BotVersion) -> str:
    retired = f", retired {bot.retired_at:%Y-%m-%d}" if bot.retired_at else ""
    return version.status + retired


@bot.command("retire")
@click.argument("name")
def retire(name: str) -> None:
    """Enter the bot NAME in no new tournament (its matches, ratings and versions stay, and
    tournaments it is in play on). `arena bot restore NAME` undoes it."""
    with user_errors():
        _, db = runtime_and_db()
        since = set_retired(db, name, True)
    click.echo(printable(f"{name} retired on {since:%Y-%m-%d}: entered in no new tournament"))


@bot.command("restore")
@click.argument("name")
def restore(name: str) -> None:
    """Let a retired bot NAME be entered in new tournaments again."""
    with user_errors():
        _, db = runtime_and_db()
        set_retired(db, name, False)
    click.echo(printable(f"{name} restored: it may be entered in new tournaments"))


@bot.command("prune")
def prune() -> None:
    """Delete the archives of rejected versions, which are never played again: their
    versions, reasons and logs stay, and their bytes stop counting toward quotas."""
    with user_errors():
        runtime, db = runtime_and_db()
        freed = free_rejected(db, runtime)
    size = sum(size for _, size in freed)
    click.echo(f"freed {plural(len(freed), 'archive')} of rejected versions ({size} bytes)")


def _reason(version: BotVersion) -> str:
    """The verdict's reason, and the rejected uploads this version's files replaced."""
    if not version.rejections:
        return version.reason
    earlier = plural(len(version.rejections), "rejected upload")
    return f"{version.reason} (replaces {earlier}: {version.rejections[-1].reason})".lstrip()


@bot.command("submit")
@click.argument("path", type=click.Path(path_type=Path))
@click.option(
    "--server",
    envvar="ARENA_SERVER",
    required=True,
    help="The dashboard's URL, e.g. http://arena.example:8000 (or ARENA_SERVER).",
)
@click.option(
    "--wait/--no-wait", default=True, help="Wait for the validation verdict (default) or not."
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=1),
    default=900.0,
    help="Seconds to wait for it (a build may take 600 s, then its validation).",
)
def submit(path: Path, server: str, wait: bool, timeout: float) -> None:
    """Upload the bot in PATH (a directory or zip with bot.toml) to a server as a new version
    and wait for its validation: exit status 0 when valid, 1 when rejected or refused.

    The API token comes from ARENA_TOKEN, else from the token file
    (~/.config/arena/token); create one on your account page."""
    with user_errors():
        archive = archive_of(path)
        manifest = inspect_archive(archive, str(path))  # the server would refuse it too
    try:
        client = Client(server, find_token())
        reply = _upload(client, manifest["name"], archive, path)
        ref = f"{manifest['name']}@{manifest.get('version', '0')}"
        click.echo(printable(f"{ref} uploaded (id {reply['id']}): {reply['status']}"))
        if seat := reply.get("seat"):  # servers before comparisons send none
            click.echo(printable(seat))
        if not wait:
            click.echo(f"its verdict: {reply['status_url']}")
            return
        status = _verdict(client, reply["id"], timeout, reply["status_url"])
    except ApiError as exc:
        raise click.ClickException(str(exc)) from None
    if status["status"] == "rejected":
        _show_log(client, status)
        raise click.ClickException(printable(f"{ref} rejected: {status['reason']}"))
    click.echo(printable(f"{ref} (id {status['id']}) is valid"))
    if ladder := reply.get("ladder"):
        click.echo(printable(ladder_line(ladder)))


def ladder_line(ladder: dict) -> str:
    """What an upload's reply says of the ladder the version enters (servers before the
    ladder send none)."""
    wait = ladder.get("wait_s")
    when = {
        "paused": "once an organiser resumes the ladder",
        "settled": "at once (the ladder rests until a new version arrives)",
    }.get(
        ladder.get("state", ""),
        f"in about {wait / 60:.0f} min" if wait else "as soon as a worker is free",
    )
    return (
        f"it enters the {ladder['name']} ladder: {ladder['placement_matches']} placement "
        f"matches, the first {when}; see where it stands with the dashboard's ladder page"
    )


def _upload(client: Client, name: str, archive: bytes, path: Path) -> dict:
    columns = (TextColumn("uploading"), BarColumn(), DownloadColumn(), TransferSpeedColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as progress:
        task = progress.add_task("upload", total=len(archive))
        filename = path.name if path.is_file() else f"{path.resolve().name}.zip"
        return client.upload(
            name, archive, filename, lambda sent: progress.update(task, completed=sent)
        )


def _verdict(client: Client, version_id: int, timeout: float, where: str) -> dict:
    deadline = time.monotonic() + timeout
    with Console(stderr=True).status("validation match among house bots..."):
        while (status := client.status(version_id))["status"] == "pending":
            if time.monotonic() > deadline:
                raise ApiError(f"still pending after {timeout:.0f} s; its verdict: {where}")
            time.sleep(POLL_S)
    return status


def _show_log(client: Client, status: dict) -> None:
    """The end of its build's output and of what the bot wrote in its validation match, to
    stderr."""
    if not status.get("has_log") and not status.get("has_build_log"):
        return
    try:
        logs = client.logs(status["id"])
    except ApiError as exc:
        click.echo(f"(its logs are not readable: {exc})", err=True)
        return
    for key, what in (("build_log", "build log"), ("log", "validation log")):
        # at "\n" only: splitlines() would also break at the RS that starts a marker line
        if text := (logs.get(key) or "").rstrip("\n"):
            click.echo(f"the end of its {what}:", err=True)
            for line in text.split("\n")[-LOG_LINES:]:
                click.echo(f"  {printable(line)}", err=True)
