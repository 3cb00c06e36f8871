"""Who may share a table: never two bots of one owner (fair play).

Two bots of one author at a table could play as a team (signal through their calls, feed
each other tricks, or simply be one program that knows its partner). So every scheduler
takes ``owners``: entrant name -> owner label; bots of one label never sit at one table.
Entrants missing from the mapping (house bots, an organiser who allowed same-owner tables)
are free. Pure: no I/O; the store side that builds the labels is in
``arena.tournaments.create``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence

SEATS = 4
Owners = Mapping[str, str]

ALLOW_HINT = "or allow same-owner tables for this tournament (--allow-same-owner)"


def group_ids(names: Sequence[str], owners: Owners) -> list[int]:
    """A group number per name: one per owner label, a group of its own for a free bot."""
    keys = [("owner", owners[n]) if n in owners else ("free", n) for n in names]
    numbers: dict[tuple[str, str], int] = {}
    return [numbers.setdefault(key, len(numbers)) for key in keys]


def apart(seats: Iterable[str], owners: Owners) -> bool:
    """Whether no two of ``seats`` share an owner."""
    labels = [owners[name] for name in seats if name in owners]
    return len(labels) == len(set(labels))


def seating_problem(names: Sequence[str], owners: Owners, shown: Mapping[str, str]) -> str | None:
    """Why no table of ``names`` can seat four owners (a one-line message naming the owner
    with the most entrants and its bots, as ``shown`` writes them), or None if one can."""
    if len(set(group_ids(names, owners))) >= min(SEATS, len(names)):
        return None
    entered: dict[str, list[str]] = defaultdict(list)
    for name in names:
        if name in owners:
            entered[owners[name]].append(shown.get(name, name))
    label, bots = max(entered.items(), key=lambda item: (len(item[1]), item[0]))
    return (
        f"every table would seat two bots of one owner: {label} entered {', '.join(bots)}; "
        f"enter bots of other owners (house bots count as their own) {ALLOW_HINT}"
    )
