"""Extra matches where the ranking is unsure: tables of neighbours whose intervals overlap.

A round robin spends as many matches on a pair whose order is certain as on neighbours
whose intervals overlap. :func:`extra_tables` instead seats, match after match, the three
consecutive bots of the current ranking whose two neighbour intervals overlap most (ties go
to the top of the table; with ``top=K`` only the neighbour pairs among the first K count,
for a contest that must settle its podium first). The fourth seat goes to the bot outside
them with the widest interval. That anchor matters: Elo is relative to the mean of all the
bots, so a bot's interval also holds the uncertainty of its distance to the rest, which
matches among the same four bots alone never reduce (a first version that seated four
neighbours never separated the top 3 of 8 bots in 2,000 matches, the round robin did in
about 300: ``benchmarks/rating_fidelity.py --engine``).

After each chosen match the intervals of its four bots are narrowed as that match would
narrow them, by √(games / (games + games per match)) around the same estimate, so a batch
of N matches spreads over the unsure places and the anchors instead of piling on one.
Seats are balanced: each table's starting seats go to the order (of the 24) that adds least
to its bots' counts of starting seats so far.

Two bots of one owner (``owners``) never share a table: a window then takes the next bots
down the ranking of other owners (its "neighbours" are the nearest it may meet), and the
anchor is the widest interval among the bots it may meet. The window starting at the top
always has a legal table when the entrants have four owners. A standing ladder also passes
``meetings`` (matches so far by pair of bots) and ``max_meetings``: a table whose pair has
met that often is drawn only when no other table can be (no pair is over-played), and
``sure_within``: a pair of narrow intervals counts as separated.

Pure and deterministic: same standings, counts and options, same tables.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from arena.tournaments.owners import Owners, apart

SEATS = 4
WINDOW = 3  # neighbours per table; the fourth seat anchors them to the rest
Seats = tuple[str, str, str, str]
Meetings = Counter[frozenset[str]]  # matches so far, by pair of bots
MayMeet = Callable[[list[str]], bool]


@dataclass(frozen=True)
class Ranked:
    """One entrant as the standings see it: Elo, 95 % interval, games played."""

    name: str
    elo: float
    ci_low: float
    ci_high: float
    games: int


def overlaps(ranking: Sequence[Ranked]) -> list[float]:
    """How far each bot's interval overlaps the next one's (Elo; negative: a gap), in
    ranking order (best first)."""
    return [_overlap(a, b) for a, b in itertools.pairwise(ranking)]


def separated_top(ranking: Sequence[Ranked], top: int) -> bool:
    """Whether each of the first ``top`` bots' interval is disjoint from the next one's."""
    return all(gap < 0 for gap in overlaps(ranking)[: top - 1])


def extra_tables(
    standings: Sequence[Ranked],
    count: int,
    seat_counts: Mapping[str, Sequence[int]],
    games_per_match: int,
    top: int | None = None,
    owners: Owners | None = None,
    meetings: Meetings | None = None,
    max_meetings: int | None = None,
    sure_within: float | None = None,
) -> list[Seats]:
    """``count`` tables (starting seat order) over the entrants of ``standings`` (at least
    4); ``seat_counts[name][i]``: how many matches the bot has started in seat i; ``top``:
    separate the first ``top`` places only (None: the whole ranking); ``owners``: no table
    seats two bots of one owner; ``meetings``/``max_meetings``: avoid over-played pairs
    (``meetings`` is updated with the tables drawn); ``sure_within``: a neighbour pair
    whose intervals are both within that many Elo either side is sure enough (two bots of
    equal strength never separate: without it they would take every table)."""
    if len(standings) < SEATS:
        raise ValueError(f"extra matches need at least {SEATS} entrants, not {len(standings)}")
    if count < 1:
        raise ValueError(f"the number of extra matches must be at least 1, not {count}")
    if top is not None and top < 2:
        raise ValueError(f"top must name at least 2 places, not {top}")
    ranking = sorted(standings, key=lambda r: (-r.elo, r.name))
    seats = {r.name: list(seat_counts.get(r.name, [0] * SEATS)) for r in ranking}
    owners = owners or {}
    meetings = Counter() if meetings is None else meetings

    def fresh(names: list[str]) -> bool:
        if not apart(names, owners):
            return False
        pairs = itertools.combinations(names, 2)
        return max_meetings is None or all(meetings[frozenset(p)] < max_meetings for p in pairs)

    out = []
    for _ in range(count):
        places = len(ranking) if top is None else top
        try:
            table = _most_unsure(ranking, places, fresh, sure_within)
        except ValueError:  # every table over-plays a pair: the owners rule alone
            table = _most_unsure(ranking, places, lambda names: apart(names, owners), sure_within)
        names = [ranking[i].name for i in table]
        meetings.update(frozenset(p) for p in itertools.combinations(names, 2))
        out.append(seat_table([ranking[i] for i in table], seats))
        for i in table:
            ranking[i] = after_match(ranking[i], games_per_match)
    return out


def _most_unsure(
    ranking: list[Ranked], top: int, may_meet: MayMeet, sure_within: float | None = None
) -> list[int]:
    """The ranks of a table: the window of three whose two neighbour overlaps (among the
    first ``top`` places) sum highest (overlaps counted from 0; then the least gap; then the
    top), and its anchor."""

    def score(window: list[int]) -> tuple[float, float, int]:
        counted = [
            _unsure(ranking[a], ranking[b], sure_within) for a, b in itertools.pairwise(window)
        ]
        counted = [g for g, b in zip(counted, window[1:], strict=True) if b < top]
        return (sum(max(g, 0.0) for g in counted), sum(counted), -window[0])

    windows = [w for start in range(len(ranking)) if (w := _window(ranking, start, may_meet))]
    for window in sorted(windows, key=score, reverse=True):
        anchor = _anchor(ranking, window, may_meet)
        if anchor is not None:
            return [*window, anchor]
    raise ValueError("no table of four owners can be drawn from these entrants")


def _overlap(a: Ranked, b: Ranked) -> float:
    return min(a.ci_high, b.ci_high) - max(a.ci_low, b.ci_low)


def _unsure(a: Ranked, b: Ranked, sure_within: float | None) -> float:
    """The overlap of a neighbour pair as far as it is worth playing: none (at most 0)
    when both intervals are within ``sure_within`` Elo either side."""
    gap = _overlap(a, b)
    if sure_within is not None and half_width(a) <= sure_within >= half_width(b):
        return min(gap, 0.0)
    return gap


def half_width(r: Ranked) -> float:
    """The 95 % interval's larger side, in Elo."""
    return max(r.elo - r.ci_low, r.ci_high - r.elo)


def _window(ranking: list[Ranked], start: int, may_meet: MayMeet) -> list[int] | None:
    """The bot at ``start`` and the next ones down the ranking that it and each other may
    meet, three in all (None if the ranking ends first)."""
    window = [start]
    for i in range(start + 1, len(ranking)):
        if len(window) == WINDOW:
            break
        if may_meet([ranking[j].name for j in [*window, i]]):
            window.append(i)
    return window if len(window) == WINDOW else None


def _anchor(ranking: list[Ranked], window: list[int], may_meet: MayMeet) -> int | None:
    """The fourth seat: the bot outside the window, apart from its owners, with the widest
    interval (then the fewest games, then the best rank); None if there is none."""
    names = [ranking[i].name for i in window]
    outside = [
        i for i in range(len(ranking)) if i not in window and may_meet([*names, ranking[i].name])
    ]
    return max(
        outside,
        key=lambda i: (ranking[i].ci_high - ranking[i].ci_low, -ranking[i].games, -i),
        default=None,
    )


def after_match(r: Ranked, games_per_match: int) -> Ranked:
    """The bot's interval as one more match would leave it, about the same estimate."""
    shrink = math.sqrt(r.games / (r.games + games_per_match)) if r.games else 1.0
    low, high = r.elo - (r.elo - r.ci_low) * shrink, r.elo + (r.ci_high - r.elo) * shrink
    return Ranked(r.name, r.elo, low, high, r.games + games_per_match)


def seat_table(window: Sequence[Ranked], seats: dict[str, list[int]]) -> Seats:
    """The starting order that adds least to the bots' seat counts (first such order of
    the names' permutations); updates ``seats``."""
    names = sorted(r.name for r in window)
    best = min(
        itertools.permutations(names),
        key=lambda order: sum(seats[name][i] for i, name in enumerate(order)),
    )
    for i, name in enumerate(best):
        seats[name][i] += 1
    a, b, c, d = best
    return a, b, c, d
