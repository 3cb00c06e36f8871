"""``arena user``: accounts made from the shell, such as the first organiser."""

from __future__ import annotations

import os

import click

from arena.cli.context import runtime_and_db, user_errors
from arena.store import create_user
from arena.text import printable


@click.group()
def user() -> None:
    """Create user accounts (sign-up on the dashboard makes the others)."""


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
