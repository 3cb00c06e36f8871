"""Accounts in bulk, from a CSV file an organiser has (``arena user import``): a contest's
registrations made into accounts at once, all or none, passwords generated where the file
has none (printed once by the caller, never stored in clear)."""

from __future__ import annotations

import csv
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sqlalchemy.orm import Session

from arena.store import StoreError, create_user

COLUMNS = ("name", "password", "admin")
_YES = {"1", "yes", "y", "true", "x"}


@dataclass(frozen=True)
class NewAccount:
    line: int  # in the file, for messages
    name: str
    password: str  # empty: one is generated
    admin: bool = False


def read_accounts(lines: Iterable[str], where: str) -> tuple[list[NewAccount], list[str]]:
    """The accounts of a CSV file whose header row names the columns (``name``; optional
    ``password`` and ``admin``: yes/1/true for an organiser), and the other columns it has,
    which are not read. ``where`` names the file in messages."""
    reader = csv.DictReader(lines)
    header = [(field or "").strip().lower() for field in reader.fieldnames or []]
    if "name" not in header:
        raise ValueError(f"{where}: the first row must name the columns, one of them 'name'")
    reader.fieldnames = header
    accounts = [
        NewAccount(
            reader.line_num,
            (row.get("name") or "").strip(),
            (row.get("password") or "").strip(),
            (row.get("admin") or "").strip().lower() in _YES,
        )
        for row in reader
    ]
    if not accounts:
        raise ValueError(f"{where}: no accounts below the header row")
    return accounts, [field for field in header if field not in COLUMNS]


def create_accounts(
    s: Session, accounts: Sequence[NewAccount], where: str
) -> list[tuple[str, str]]:
    """Create every account in the caller's transaction (one refused: none are made, the
    ``StoreError`` names its line); returns ``(name, password)`` of those generated."""
    generated = []
    for account in accounts:
        password = account.password or secrets.token_urlsafe(12)
        try:
            create_user(s, account.name, password, admin=account.admin)
        except StoreError as exc:
            raise StoreError(
                f"{where} line {account.line}: {exc}; no account was created"
            ) from None
        if not account.password:
            generated.append((account.name, password))
    return generated
