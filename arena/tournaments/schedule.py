"""The tournament scheduler: which bots share each table, in which seats, with which seed.

Pure and deterministic: the same entrants (in any order), seed and options give the same
schedule on any machine and Python version; no I/O, no clock.

Guarantees of :func:`schedule` for ``n >= 4`` entrants and ``T`` tables:

* every table seats 4 different bots;
* every bot plays ``4T/n`` tables rounded down or up (max - min <= 1);
* every bot sits in each seat equally often to within 1 (always: an equitable colouring);
* if ``T`` is a multiple of C(n, 4), every 4-subset plays equally often;
* pairs (how often two bots share a table), in three regimes:

  - ``pairs_guaranteed(n, T)``: max - min <= 1. The part of ``T`` beyond whole copies of
    every 4-subset gives each bot at least 4 tables and ``pair_slack`` (distance from a
    block design) is at least ``pair_slack_needed(n)``. Verified for 5 <= n <= 12 and every
    T <= C(n, 4) + n, and on about 1,400 sampled (n, T) with n <= 40 and T <= 1000.
  - not ``pairs_can_balance``: max - min <= 1 is impossible by counting (e.g. 5 bots and 2
    tables, or 35 bots and 100 tables); max - min is 2.
  - in between (near-designs, or under 4 tables per bot): usually 1, but the bounded search
    may miss the rare solutions (some may not exist), and then it is 2.

  Which tables exist depends only on (n, T), never on the seed, so these outcomes are a
  property of the request; the seed only decides who plays as whom, the seats and the order.
* table order: every bot's share of its tables played grows evenly (a tournament stopped
  early, or standings read live, treat bots alike).

Owners (``owners``: entrant -> owner label, see :mod:`arena.tournaments.owners`): two bots
of one owner never share a table, and what weakens is this:

* the round robin (chosen, as without owners, when every 4-subset is affordable) plays every
  legal 4-subset once and leaves out the others, so a bot whose owner entered several plays
  fewer tables, and pair counts differ;
* a balanced design keeps tables of four owners through its whole search and seats within
  1. Tables per bot stay within 1 when no owner has more than a quarter of the entrants (in
  testing; an owner with more cannot: a table seats one of its bots). Pair counts (of the
  pairs that may meet) are no longer within 1: within 3 in testing from 12 bots; below,
  few owners can leave no choice (8 bots as 2+2+2+1+1 at equal tables per bot put one bot
  of each pair at every table, so the two single bots never meet).

The referee rotates bots through the seats within a match; this module only fixes each
match's starting seat order.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from math import ceil, comb

from arena.tournaments.balance import (
    Rng,
    assign_seats,
    choose_tables,
    pair_slack,
    split_copies,
    spread_order,
    subset_count,
)
from arena.tournaments.owners import Owners, group_ids, seating_problem

# Play every 4-subset of the entrants when there are at most this many (C(12, 4) = 495, so
# up to 12 entrants by default); beyond it, a balanced design of default_table_count tables.
DEFAULT_MAX_TABLES = 500
# A balanced design by default lets every pair of bots share at least this many tables.
DEFAULT_PAIR_MEETINGS = 3
# Fillers for a tournament of fewer than 4 entrants (3 are needed for a single entrant).
DEFAULT_HOUSE_BOTS = ("house:heuristic", "house:random", "house:heuristic#2")
SEATS = 4
Seats = tuple[str, str, str, str]


@dataclass(frozen=True)
class Table:
    """One match: ``seats[i]`` starts in seat i. Its deals are not the schedule's business:
    their seed is secret (see ``arena.tournaments.create``), the schedule's seed is not."""

    index: int
    seats: Seats


def pair_slack_needed(n: int) -> int:
    """The pair slack at which pair counts within 1 are guaranteed (see module docstring)."""
    return max(2, n // 6)


def pairs_guaranteed(n: int, count: int) -> bool:
    """Whether :func:`schedule` guarantees pair counts within 1 for ``n >= 4`` bots and
    ``count`` tables (see the module docstring)."""
    _, rest = split_copies(n, count)
    return rest == 0 or (rest >= n and pair_slack(n, rest) >= pair_slack_needed(n))


def default_table_count(n: int) -> int:
    """Tables for a balanced design of ``n >= 4`` entrants: the fewest so that every pair
    meets at least DEFAULT_PAIR_MEETINGS times and pair counts within 1 are guaranteed."""
    count = ceil(DEFAULT_PAIR_MEETINGS * comb(n, 2) / 6)
    while not pairs_guaranteed(n, count):
        count += 1
    return count


def planned_tables(
    entrant_count: int,
    *,
    tables: int | None = None,
    max_tables: int = DEFAULT_MAX_TABLES,
    groups: Sequence[int] | None = None,
) -> int:
    """How many tables :func:`schedule` makes for this many entrants. Whether the round robin
    is affordable does not depend on the owners (``groups``, see ``balance``); its size
    does: only 4-subsets of four owners are played."""
    if tables is not None:
        return tables
    if entrant_count < SEATS:
        return SEATS
    if comb(entrant_count, SEATS) <= max_tables:
        return subset_count(entrant_count, groups)
    return min(max_tables, default_table_count(entrant_count))


def schedule(
    entrants: Sequence[str],
    seed: int,
    *,
    tables: int | None = None,
    max_tables: int = DEFAULT_MAX_TABLES,
    house_bots: Sequence[str] = DEFAULT_HOUSE_BOTS,
    owners: Owners | None = None,
) -> list[Table]:
    """The tables of a round robin over ``entrants`` (bot ids), deterministic from ``seed``.

    ``tables=None`` picks the size: every 4-subset if there are at most ``max_tables`` of
    them, else ``min(max_tables, default_table_count(n))`` balanced tables; fewer than 4
    entrants get 4 tables with house bots filling the empty seats, rotating so that each
    entrant has each seat once. An explicit ``tables`` is always honoured (``max_tables``
    only bounds the automatic choice). Entrant order does not matter. Two entrants of one
    owner (``owners``) never share a table; ValueError when no table could seat them apart.
    """
    names = _check_entrants(entrants)
    owners = owners or {}
    if max_tables < 1:
        raise ValueError(f"max_tables must be at least 1, not {max_tables}")
    problem = seating_problem(names, owners, {})
    if problem:
        raise ValueError(problem)
    groups = group_ids(names, owners)
    count = planned_tables(len(names), tables=tables, max_tables=max_tables, groups=groups)
    if count < 1:
        raise ValueError(f"a tournament needs at least one table, not {count}")
    rng = Rng(_digest("schedule", seed, count))
    if len(names) < SEATS:
        seatings = _house_seatings(names, _check_house(house_bots, names), count, rng)
    else:
        seatings = _balanced_seatings(names, groups, count, rng)
    return [Table(index=i, seats=seats) for i, seats in enumerate(seatings)]


def _balanced_seatings(names: list[str], groups: list[int], count: int, rng: Rng) -> list[Seats]:
    """Seat orders for ``count`` tables over 4 or more entrants, ordered so that every bot's
    share of its tables played grows evenly.

    Which index sets form tables depends only on (n, count) and the owners' group sizes, so
    pair balance is a property of the request, never of a lucky or unlucky seed; the seed
    decides who plays as which index (within what the owners allow), the seats and the order.
    """
    n = len(names)
    who = _who(groups, rng)  # the entrant playing as index b in the design
    design_groups = [groups[e] for e in who] if len(set(groups)) < n else None
    chosen = choose_tables(n, count, Rng(_digest("design", n, count)), design_groups)
    seated = assign_seats(chosen, n, rng)
    order = spread_order(chosen, n, rng)
    return [_seats([names[who[b]] for b in seated[t]]) for t in order]


def _who(groups: list[int], rng: Rng) -> list[int]:
    """The entrants in a seeded order, an owner's bots together and larger owners first, so
    that the design's groups (index ranges) depend only on the owners' sizes."""
    shuffled = rng.shuffled(range(len(groups)))
    size = Counter(groups)
    first: dict[int, int] = {}
    for position, e in enumerate(shuffled):
        first.setdefault(groups[e], position)
    return sorted(shuffled, key=lambda e: (-size[groups[e]], first[groups[e]]))


def _house_seatings(names: list[str], house: list[str], count: int, rng: Rng) -> list[Seats]:
    """1-3 entrants plus house bots, rotated one seat per table (in a seeded rotation
    order), so every bot sits in each seat equally often (to within 1)."""
    base = [(names + house)[i] for i in rng.shuffled(range(SEATS))]
    turns = rng.shuffled(range(SEATS))
    return [
        _seats([base[(s + turns[t % SEATS]) % SEATS] for s in range(SEATS)]) for t in range(count)
    ]


def _seats(bots: list[str]) -> Seats:
    a, b, c, d = bots
    return a, b, c, d


def seat_numbers(seats: Seats, number: Mapping[str, int]) -> tuple[int, int, int, int]:
    """A table's seats as the numbers ``number`` gives their bots."""
    a, b, c, d = seats
    return number[a], number[b], number[c], number[d]


def _check_entrants(entrants: Sequence[str]) -> list[str]:
    """The entrants, sorted (so their order is irrelevant); errors for none or duplicates."""
    if isinstance(entrants, str):
        raise TypeError("entrants must be a sequence of bot ids, not a single string")
    if not entrants:
        raise ValueError("a tournament needs at least one entrant")
    seen: set[str] = set()
    for name in entrants:
        if name in seen:
            raise ValueError(f"duplicate entrant: {name!r}")
        seen.add(name)
    return sorted(entrants)


def _check_house(house_bots: Sequence[str], names: list[str]) -> list[str]:
    """The house bots needed to fill a table, which must be distinct and not entrants."""
    needed = SEATS - len(names)
    house = list(house_bots)[:needed]
    if len(set(house)) < needed:
        raise ValueError(
            f"{len(names)} entrant(s) need {needed} distinct house bots, got {list(house_bots)}"
        )
    clash = sorted(set(house) & set(names))
    if clash:
        raise ValueError(f"house bot(s) {', '.join(clash)} are also entrants")
    return house


def _digest(purpose: str, a: int, b: int) -> int:
    """64 bits of SHA-256 over a labelled pair of ints: stable, well mixed seed material."""
    data = f"callbreak-arena/{purpose}/{a}/{b}".encode()
    return int.from_bytes(hashlib.sha256(data).digest()[:8], "big")
