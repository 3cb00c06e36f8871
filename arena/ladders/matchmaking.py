"""Which tables a ladder plays next: placements first, then where its ranking is unsure.

1. **Placement.** A version is *provisional* until it has played and its 95 % interval
   is within ``settle_half_width`` Elo either side; a provisional version with fewer than
   ``placement_matches`` matches (the cap; scheduled ones count, and narrow its interval
   as they will) is seated first, fewest first. Its opponents come from its *window*: the
   entrants rated within its interval of its estimate (at least ``NEAREST`` of them, the
   nearest), three points spread across the window that move on by the golden ratio with
   every placement match. The window is where its games so far (or its predecessor's
   rating: :mod:`arena.ratings.successors`) put it, as wide as they leave it, matches in
   flight having told nothing yet: a version nobody knows meets the whole ranking from top
   to bottom, and as its interval narrows it meets the bots near its estimate, the ones
   its place is decided against. When other provisional versions wait too, each within
   the other's window (a contest's first hour), two of them take two of those seats
   (``COHORT``: three placements a table, the fourth seat from a point of the window that
   turns with every match), so a crowd of newcomers is placed in a third of the tables.
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
NEAREST = 6  # a placement's window holds at least this many opponents to choose from
FAIR_SHARE_CAP = 2.0  # a pair may meet up to this many times its fair share


@dataclass(frozen=True)
class LadderState:
    """What the matchmaker sees. Names are entrant names (version ids as text)."""

    standings: Sequence[Ranked]  # every current entrant, as fitted (or its starting rating)
    matches: Mapping[str, int]  # matches per entrant, scheduled ones included
    seat_counts: Mapping[str, Sequence[int]]  # matches started in each seat
    meetings: Meetings = field(default_factory=Counter)  # matches so far by pair
    in_flight: Sequence[Sequence[str]] = ()  # tables scheduled, not yet played
    owners: Owners = field(default_factory=dict)
    anchors: frozenset[str] = frozenset()  # house bots: never placed, always eligible


@dataclass(frozen=True)
class Knobs:
    placement_matches: int = 8  # the cap: placement stops there, provisional or not
    settle_half_width: float = 50.0
    games_per_match: int = 4


def next_tables(state: LadderState, count: int, knobs: Knobs) -> list[Seats]:
    """Up to ``count`` tables to schedule (fewer, or none, when the ladder settles or has
    not four owners' bots to seat)."""
    fitted = {r.name: r for r in state.standings}
    expected = {r.name: r for r in _expected(state, knobs.games_per_match)}
    matches = Counter(state.matches)
    seats = {name: list(state.seat_counts.get(name, [0] * SEATS)) for name in expected}
    meetings = Counter(state.meetings)
    tables: list[Seats] = []
    while len(tables) < count:
        table = _placement(state, fitted, expected, matches, seats, knobs)
        if table is None:
            break
        tables.append(table)
        meetings.update(frozenset(p) for p in itertools.combinations(table, 2))
        for name in table:  # the placements narrow their bots too
            matches[name] += 1
            expected[name] = after_match(expected[name], knobs.games_per_match)
    standings = list(expected.values())
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


def provisional(r: Ranked, within: float) -> bool:
    """Whether ``r``'s place is not yet known to within ``within`` Elo (the ladder's settle
    width): its 95 % interval reaches farther either side, or it has not played at all (a
    starting rating is no measurement, however wide the settle width)."""
    return r.games == 0 or half_width(r) > within


def unplaced(state: LadderState, knobs: Knobs) -> list[str]:
    """Entrants still being placed, fewest matches first: provisional and short of the cap
    (anchors never are)."""
    short = [
        r.name
        for r in state.standings
        if r.name not in state.anchors
        and state.matches.get(r.name, 0) < knobs.placement_matches
        and provisional(r, knobs.settle_half_width)
    ]
    return sorted(short, key=lambda name: (state.matches.get(name, 0), _order(name)))


def _placement(
    state: LadderState,
    fitted: Mapping[str, Ranked],
    expected: Mapping[str, Ranked],
    matches: Counter[str],
    seats: dict[str, list[int]],
    knobs: Knobs,
) -> Seats | None:
    """The next placement table: the entrant being placed with the fewest matches (as
    ``expected`` leaves them), up to ``COHORT - 1`` more within its window, and opponents
    from its window (None when every entrant that can be seated is placed)."""
    ranking = sorted(expected.values(), key=lambda r: (-r.elo, r.name))
    waiting = LadderState(ranking, matches, {}, anchors=state.anchors)
    short = unplaced(waiting, knobs)
    placed = [r for r in ranking if r.name not in short]
    for name in short:
        cohort = _cohort(name, short, state.owners, fitted)
        nth = matches[name]
        opponents = _near(fitted[name], placed, nth, state.owners, cohort) if cohort else None
        if opponents is None:  # alone, or no placed bot can sit with the cohort
            opponents = _near(fitted[name], ranking, nth, state.owners)
        if opponents is not None:
            window = [r for r in ranking if r.name in {name, *opponents}]
            return seat_table(window, seats)
    return None


def _cohort(
    name: str, short: Sequence[str], owners: Owners, fitted: Mapping[str, Ranked]
) -> list[str]:
    """Other entrants being placed to sit with ``name``, fewest matches first: each
    within ``name``'s window and ``name`` within theirs, all of different owners."""
    me = fitted[name]
    cohort: list[str] = []
    for other in short:
        if len(cohort) == COHORT - 1:
            break
        them = fitted[other]
        near = abs(me.elo - them.elo) <= min(half_width(me), half_width(them))
        if other != name and near and apart([name, *cohort, other], owners):
            cohort.append(other)
    return cohort


def _near(
    me: Ranked, ranking: Sequence[Ranked], nth: int, owners: Owners, cohort: Sequence[str] = ()
) -> list[str] | None:
    """``me``'s opponents for its ``nth`` placement match: ``cohort``, then for each seat
    left the bot of ``ranking`` nearest a point of ``me``'s window (``_window``), the
    points spread over it and turning with ``nth``, all of different owners (beyond the
    window when its own bots' owners clash); None if no such table can be drawn."""
    others = [r for r in ranking if r.name != me.name and r.name not in cohort]
    left = SEATS - 1 - len(cohort)
    if len(others) < left:
        return None
    low, high = _window(me, others)
    offset = (nth * GOLDEN) % 1.0
    parts = range(SEATS - 1) if not cohort else [(nth + k) % (SEATS - 1) for k in range(left)]
    chosen: list[str] = list(cohort)
    for part in parts:
        target = min(low + (part + offset) * (high - low) / (SEATS - 1), high - 1)
        by_distance = sorted(range(len(others)), key=lambda i: (abs(i - target), i))
        pick = next(
            (
                others[i].name
                for i in by_distance
                if others[i].name not in chosen
                and apart([me.name, *chosen, others[i].name], owners)
            ),
            None,
        )
        if pick is None:
            return None
        chosen.append(pick)
    return chosen


def _window(me: Ranked, others: Sequence[Ranked]) -> tuple[int, int]:
    """The positions [low, high) of ``others`` (best first) rated within ``me``'s 95 %
    interval of its estimate, or the ``NEAREST`` nearest to it when fewer are."""
    reach = half_width(me)
    inside = [i for i, r in enumerate(others) if abs(r.elo - me.elo) <= reach]
    if len(inside) >= min(NEAREST, len(others)):
        return inside[0], inside[-1] + 1
    nearest = sorted(range(len(others)), key=lambda i: (abs(others[i].elo - me.elo), i))
    picked = nearest[: min(NEAREST, len(others))]
    return min(picked), max(picked) + 1


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
