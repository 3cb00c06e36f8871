"""Which tables a ladder plays next: placements first, then where its ranking is unsure.

1. **Placement.** A version with fewer than the placement quota of matches (scheduled ones
   count) is seated first, fewest first, with three opponents spread across the current
   ranking: one from each third, at a point of the third that moves on by the golden ratio
   with every placement match, so eight matches meet opponents from top to bottom. When
   other versions wait for placement too (a contest's first hour), two of them take two of
   those seats (``COHORT``: three placements a table, the fourth seat from a third of the
   ranking that turns with every match), so a crowd of newcomers is placed in a third of
   the tables.
2. **Unsure places.** Otherwise :func:`arena.tournaments.adaptive.extra_tables` draws the
   tables of overlapping neighbours (and their anchor), no pair of bots meeting more than
   twice its fair share of the ladder's matches while another table can be drawn; a pair
   whose intervals are both within the settle width counts as separated (it is settled),
   so equal bots do not take every table.
3. **Settled.** With every entrant placed and every neighbour pair either separated or
   made of two 95 % intervals at most ``settle_half_width`` Elo either side, nothing is
   scheduled: a settled ladder costs nothing, and wakes by itself when its entrants change
   (a new version needs placing; a retirement changes the neighbours).

Matches scheduled but not yet played count as played, their bots' intervals narrowed as
they would narrow them (``adaptive.after_match``), so topping the queue up never piles
tables on the place the last top-up already covered.

Pure and deterministic: same state, same tables.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from arena.tournaments.adaptive import (
    SEATS,
    Meetings,
    Ranked,
    Seats,
    after_match,
    extra_tables,
    half_width,
    overlaps,
    seat_table,
)
from arena.tournaments.owners import Owners, apart

GOLDEN = (math.sqrt(5) - 1) / 2
COHORT = 3  # versions placed at one table, when that many wait
FAIR_SHARE_CAP = 2.0  # a pair may meet up to this many times its fair share


@dataclass(frozen=True)
class LadderState:
    """What the matchmaker sees. Names are entrant names (version ids as text)."""

    standings: Sequence[Ranked]  # every current entrant, rated or (wide, 0 games) not yet
    matches: Mapping[str, int]  # matches per entrant, scheduled ones included
    seat_counts: Mapping[str, Sequence[int]]  # matches started in each seat
    meetings: Meetings = field(default_factory=Counter)  # matches so far by pair
    in_flight: Sequence[Sequence[str]] = ()  # tables scheduled, not yet played
    owners: Owners = field(default_factory=dict)
    anchors: frozenset[str] = frozenset()  # house bots: never placed, always eligible


@dataclass(frozen=True)
class Knobs:
    placement_matches: int = 8
    settle_half_width: float = 50.0
    games_per_match: int = 4


def next_tables(state: LadderState, count: int, knobs: Knobs) -> list[Seats]:
    """Up to ``count`` tables to schedule (fewer, or none, when the ladder settles or has
    not four owners' bots to seat)."""
    standings = _expected(state, knobs.games_per_match)
    matches = Counter(state.matches)
    seats = {r.name: list(state.seat_counts.get(r.name, [0] * SEATS)) for r in standings}
    meetings = Counter(state.meetings)
    tables: list[Seats] = []
    while len(tables) < count:
        table = _placement(state, standings, matches, seats, knobs.placement_matches)
        if table is None:
            break
        tables.append(table)
        meetings.update(frozenset(p) for p in itertools.combinations(table, 2))
        for name in table:
            matches[name] += 1
    by_name = {r.name: r for r in standings}
    for table in tables:  # the placements narrow their bots too
        for name in table:
            by_name[name] = after_match(by_name[name], knobs.games_per_match)
    standings = list(by_name.values())
    left = count - len(tables)
    if left <= 0 or len(standings) < SEATS or settled(standings, knobs.settle_half_width):
        return tables
    cap = _max_meetings(sum(matches.values()) // SEATS, len(standings))
    try:
        more = extra_tables(
            standings,
            left,
            seats,
            knobs.games_per_match,
            None,
            state.owners,
            meetings,
            cap,
            knobs.settle_half_width,
        )
    except ValueError:  # not four owners among the entrants: nothing to play
        return tables
    return tables + more


def settled(standings: Sequence[Ranked], within: float) -> bool:
    """Every neighbour pair either separated or made of two intervals within ``within``
    Elo either side: two bots of equal strength never separate, so narrow
    enough is sure enough (and a pair already separated needs nothing, however wide)."""
    ranking = sorted(standings, key=lambda r: (-r.elo, r.name))
    narrow = [half_width(r) <= within for r in ranking]
    gaps = overlaps(ranking)
    return all(gap < 0 or (narrow[i] and narrow[i + 1]) for i, gap in enumerate(gaps))


def unplaced(state: LadderState, quota: int) -> list[str]:
    """Entrants still short of their placement matches, fewest matches first."""
    short = [
        r.name
        for r in state.standings
        if r.name not in state.anchors and state.matches.get(r.name, 0) < quota
    ]
    return sorted(short, key=lambda name: (state.matches.get(name, 0), _order(name)))


def _placement(
    state: LadderState,
    standings: Sequence[Ranked],
    matches: Counter[str],
    seats: dict[str, list[int]],
    quota: int,
) -> Seats | None:
    """The next placement table: the entrant shortest of its quota, up to ``COHORT - 1``
    more waiting for placement, and opponents from across the ranking (None when every
    entrant that can be seated is placed)."""
    ranking = sorted(standings, key=lambda r: (-r.elo, r.name))
    short = unplaced(LadderState(standings, matches, {}, anchors=state.anchors), quota)
    placed = [r for r in ranking if r.name not in short]
    for name in short:
        cohort = _cohort(name, short, state.owners)
        opponents = _spread(name, placed, matches[name], state.owners, cohort) if cohort else None
        if opponents is None:  # alone, or no placed bot can sit with the cohort
            opponents = _spread(name, ranking, matches[name], state.owners)
        if opponents is not None:
            window = [r for r in ranking if r.name in {name, *opponents}]
            return seat_table(window, seats)
    return None


def _cohort(name: str, short: Sequence[str], owners: Owners) -> list[str]:
    """Other entrants waiting for placement to sit with ``name``, fewest matches first, all
    of different owners."""
    cohort: list[str] = []
    for other in short:
        if len(cohort) == COHORT - 1:
            break
        if other != name and apart([name, *cohort, other], owners):
            cohort.append(other)
    return cohort


def _spread(
    name: str, ranking: Sequence[Ranked], nth: int, owners: Owners, cohort: Sequence[str] = ()
) -> list[str] | None:
    """``name``'s opponents for its ``nth`` placement match: ``cohort``, then one near a point
    of each third of ``ranking`` (a newcomer not yet rated stands at 1500, mid-table) for
    each seat left, the thirds turning with ``nth``, all of different owners; None if no
    such table can be drawn."""
    others = [r.name for r in ranking if r.name != name and r.name not in cohort]
    left = SEATS - 1 - len(cohort)
    if len(others) < left:
        return None
    offset = (nth * GOLDEN) % 1.0
    thirds = range(SEATS - 1) if not cohort else [(nth + k) % (SEATS - 1) for k in range(left)]
    chosen: list[str] = list(cohort)
    for third in thirds:
        target = (third + offset) * len(others) / (SEATS - 1)
        by_distance = sorted(range(len(others)), key=lambda i: (abs(i - target), i))
        pick = next(
            (
                others[i]
                for i in by_distance
                if others[i] not in chosen and apart([name, *chosen, others[i]], owners)
            ),
            None,
        )
        if pick is None:
            return None
        chosen.append(pick)
    return chosen


def _expected(state: LadderState, games_per_match: int) -> list[Ranked]:
    """The standings as the tables already scheduled will leave them."""
    by_name = {r.name: r for r in state.standings}
    for table in state.in_flight:
        for name in table:
            if name in by_name:
                by_name[name] = after_match(by_name[name], games_per_match)
    return list(by_name.values())


def _max_meetings(matches: int, entrants: int) -> int:
    """Twice a pair's fair share of ``matches`` tables (each seats 6 pairs), at least 2."""
    pairs = entrants * (entrants - 1) / 2
    return max(2, math.ceil(FAIR_SHARE_CAP * matches * 6 / pairs)) if pairs else 2


def _order(name: str) -> tuple[int, str]:
    return (int(name), "") if name.isdigit() else (0, name)
