"""``arena user``: accounts made from the shell (the first organiser, a contest's
registrations from a CSV file) and invite codes for sign-ups on the dashboard."""

from __future__ import annotations

import csv
import os
import sys
from typing import TextIO

import click

from arena.accounts.bulk import create_accounts, read_accounts
from arena.accounts.invites import MAX_COUNT, MAX_HOURS, MAX_USES, create_invites
from arena.cli.context import runtime_and_db, user_errors
from arena.store import create_user
from arena.text import printable


@click.group()
def user() -> None:
    """Create user accounts and invite codes (sign-up on the dashboard makes the others)."""


@user.command("add")
@click.argument("name")
@click.option("--admin", is_flag=True, help="An organiser: may create, start and stop tournaments.")
def add(name: str, admin: bool) -> None:
    """Create the account NAME; the password is asked for (hidden), or read from
    ARENA_PASSWORD for scripts."""
    password = os.environ.get("ARENA_PASSWORD") or click.prompt(
        "Password", hide_input=True, confirmation_prompt=True
    )
    with user_errors():
        _, db = runtime_and_db()
        with db.session() as s:
            account = create_user(s, name, password, admin=admin)
            shown = printable(account.name)
    role = "organiser" if admin else "user"
    click.echo(f"{role} {shown!r} created")


@user.command("invite")
@click.option("--count", default=1, show_default=True, type=click.IntRange(1, MAX_COUNT))
@click.option(
    "--uses",
    default=1,
    show_default=True,
    type=click.IntRange(1, MAX_USES),
    help="Sign-ups each code takes (one code for a whole room: its size).",
)
@click.option(
    "--expires",
    "hours",
    default=24.0,
    show_default=True,
    type=click.FloatRange(0, MAX_HOURS, min_open=True),
    help="Hours until the codes expire.",
)
@click.option("--label", default="", help="What they are for, as the web's list shows them.")
def invite(count: int, uses: int, hours: float, label: str) -> None:
    """Make invite codes, printed one a line (shown this once): a sign-up on the dashboard
    with one is not counted against its address's hourly limit, so a room of contestants
    behind one NAT can all sign up."""
    with user_errors():
        _, db = runtime_and_db()
        with db.session() as s:
            codes = create_invites(s, count, uses, hours, label)
    for code in codes:
        click.echo(code)
    each = f"{uses} sign-up{'s' if uses != 1 else ''}"
    click.echo(f"each good for {each} within {hours:g} hours; shown this once", err=True)


@user.command("import")
@click.argument("csv_file", type=click.File(encoding="utf-8-sig"))
def import_accounts(csv_file: TextIO) -> None:
    """Create the accounts listed in CSV_FILE, all or none. Its first row names the columns:
    name, and optionally password (at least 8 characters) and admin (yes for an organiser);
    other columns are not read. Where a password is missing one is generated: those are
    printed once, as CSV (name,password), to hand out."""
    where = click.format_filename(csv_file.name)
    with user_errors():
        accounts, ignored = read_accounts(csv_file, where)
        _, db = runtime_and_db()
        with db.session() as s:
            generated = create_accounts(s, accounts, where)
    if generated:
        out = csv.writer(sys.stdout, lineterminator="\n")
        out.writerow(("name", "password"))
        out.writerows(generated)
    note = f"{len(accounts)} accounts created"
    if generated:
        note += f"; the {len(generated)} generated passwords above are shown this once"
    if ignored:
        note += f" (columns not read: {', '.join(ignored)})"
    click.echo(note, err=True)
