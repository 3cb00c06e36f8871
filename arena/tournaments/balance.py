"""Balanced 4-player table designs over bot indices: which bots meet, and in which seats.

Everything here works on bot indices ``0..n-1`` and a seeded :class:`Rng`; the public
scheduler in :mod:`arena.tournaments.schedule` maps indices to bot ids. ``groups`` (a group
number per bot, None: every bot its own) keeps bots of one group (owner) off a table:
tables are only ever built and changed into ones of four groups.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from itertools import combinations
from math import comb

import numpy as np

SEATS = 4
# Search budget. A step scores every swap for one out-of-window pair, costing about
# (tables + STEP_OVERHEAD) units; the whole search gets SEARCH_WORK units (about a second
# on a laptop) but at least one attempt. Loose instances finish in a few dozen steps;
# near-designs succeed within an attempt or not at all, so a failed attempt restarts.
SEARCH_WORK = 1_000_000
STEP_OVERHEAD = 150
ATTEMPT_STEPS = 1500


class Rng:
    """A seeded RNG that draws only from ``random.random()``.

    Python guarantees ``random.Random(int).random()`` is stable across versions, unlike
    ``shuffle``/``randrange``, so schedules stay reproducible after an interpreter upgrade.
    """

    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed).random

    def below(self, k: int) -> int:
        """A uniform-enough integer in ``[0, k)`` (``k`` >= 1)."""
        return min(int(self._random() * k), k - 1)

    def shuffled(self, items: Sequence[int]) -> list[int]:
        """A Fisher-Yates shuffle of a copy of ``items``."""
        out = list(items)
        for i in range(len(out) - 1, 0, -1):
            j = self.below(i + 1)
            out[i], out[j] = out[j], out[i]
        return out


def pair_band(n: int, count: int, groups: Sequence[int] | None = None) -> tuple[int, int]:
    """The (lowest, highest) pair count of a schedule whose pair counts differ by at most 1
    (over the pairs that may meet)."""
    lam, extra = divmod(6 * count, int(comb(n, 2) - clashes(n, groups).sum() // 2))
    return lam, lam + (extra > 0)


def clashes(n: int, groups: Sequence[int] | None) -> np.ndarray:
    """``clash[a, b]``: bots a != b are of one group and never share a table."""
    if groups is None:
        return np.zeros((n, n), dtype=bool)
    g = np.asarray(groups)
    return (g[:, None] == g[None, :]) & ~np.eye(n, dtype=bool)


def subset_count(n: int, groups: Sequence[int] | None = None) -> int:
    """How many 4-subsets of the bots seat four groups: the elementary symmetric polynomial
    of degree 4 over the group sizes (C(n, 4) without groups)."""
    if groups is None:
        return comb(n, SEATS)
    e = [1] + [0] * SEATS
    for size in Counter(groups).values():
        for k in range(SEATS, 0, -1):
            e[k] += e[k - 1] * size
    return e[SEATS]


def legal_subsets(n: int, groups: Sequence[int] | None = None) -> list[tuple[int, ...]]:
    """Every 4-subset of the bots that seats four groups, in lexicographic order."""
    subsets = combinations(range(n), SEATS)
    if groups is None:
        return list(subsets)
    return [c for c in subsets if len({groups[b] for b in c}) == SEATS]


def heavy_degrees(n: int, count: int) -> list[int]:
    """For each bot (sorted, fewest tables first): how many partners it must meet at the
    higher pair count if pair counts are to differ by at most 1.

    A bot at r tables fills 3r partner slots over n - 1 partners, all met ``lo`` or ``lo + 1``
    times, so the number met ``lo + 1`` times is forced: 3r - (n - 1) lo.
    """
    lo, _ = pair_band(n, count)
    r, extra = divmod(SEATS * count, n)
    low = 3 * r - (n - 1) * lo
    return [low] * (n - extra) + [low + 3] * extra


def pairs_can_balance(n: int, count: int) -> bool:
    """Whether counting allows pair counts within 1 of each other with ±1 tables per bot:
    the forced degrees must fit in [0, n - 1] and form a simple graph (necessary, not
    sufficient: see :func:`pair_slack`)."""
    lo, hi = pair_band(n, count)
    degrees = heavy_degrees(n, count)
    if lo == hi:
        return not any(degrees)
    return min(degrees) >= 0 and max(degrees) <= n - 1 and _graphical(degrees)


def pair_slack(n: int, count: int) -> int:
    """How far the instance is from a design: the fewest partners any bot meets at the higher
    (or at the lower) count. Negative means ±1 is impossible; 0 is an exact BIBD; near 0 the
    solutions are rare and the bounded search may miss them (spread 2 is returned)."""
    if not pairs_can_balance(n, count):
        return -1
    return min(min(d, n - 1 - d) for d in heavy_degrees(n, count))


def _graphical(degrees: list[int]) -> bool:
    """Erdős–Gallai: whether a simple graph has this degree sequence."""
    seq = sorted(degrees, reverse=True)
    if sum(seq) % 2:
        return False
    for k in range(1, len(seq) + 1):
        if sum(seq[:k]) > k * (k - 1) + sum(min(d, k) for d in seq[k:]):
            return False
    return True


def split_copies(n: int, count: int, groups: Sequence[int] | None = None) -> tuple[int, int]:
    """(full copies of every legal 4-subset, tables left to design) for ``count`` tables.
    Copies are perfectly balanced; a remainder too small for every bot to play is merged
    with one copy, as designs where each bot plays under 4 tables are often impossible to
    balance."""
    every = subset_count(n, groups)
    copies, rest = divmod(count, every)
    if copies and 0 < rest < n:
        return copies - 1, rest + every
    return copies, rest


def choose_tables(
    n: int, count: int, rng: Rng, groups: Sequence[int] | None = None
) -> list[tuple[int, ...]]:
    """``count`` unordered tables over ``n >= 4`` bots (of at least 4 groups): full copies
    of every legal 4-subset as far as :func:`split_copies` says, the rest from a searched
    design."""
    copies, rest = split_copies(n, count, groups)
    tables = legal_subsets(n, groups) * copies if copies else []
    if rest:
        tables += [tuple(t) for t in balanced_tables(n, rest, rng, groups).tolist()]
    return tables


def greedy_tables(n: int, count: int, rng: Rng, groups: Sequence[int] | None = None) -> np.ndarray:
    """Deal bots out round by round (everyone once per round, so tables per bot differ by at
    most 1), filling each table with the bots that have met its members least so far.

    With groups, a table takes no second bot of a group, and the bots of the groups most
    numerous in the round go first; when the round's last bots all share a group with the
    table, a bot of another group plays again (fewest tables first), so tables per bot may
    then differ by more than 1."""
    group = list(range(n)) if groups is None else list(groups)
    met = [[0] * n for _ in range(n)]
    plays = [0] * n
    pool: list[int] = []
    waiting: Counter[int] = Counter()
    tables = np.empty((count, SEATS), dtype=np.int64)
    for index in range(count):
        table: list[int] = []
        for _ in range(SEATS):
            if not any(b not in table for b in pool):  # a new round (pool is empty, n > 4)
                pool = rng.shuffled([b for b in range(n) if b not in pool] + pool)
                waiting = Counter(group[b] for b in pool)
            taken = {group[t] for t in table}
            fits = [b for b in pool if group[b] not in taken]
            if fits:
                pick = min(fits, key=lambda b: (-waiting[group[b]], sum(met[b][t] for t in table)))
            else:
                again = [b for b in range(n) if group[b] not in taken and b not in pool]
                pick = min(again, key=lambda b: (plays[b], sum(met[b][t] for t in table)))
            table.append(pick)
            plays[pick] += 1
            if pick in pool:
                pool.remove(pick)
                waiting[group[pick]] -= 1
        for a, b in combinations(table, 2):
            met[a][b] += 1
            met[b][a] += 1
        tables[index] = table
    return tables


class _Design:
    """Tables plus the pair-count matrix and a table-by-bot membership matrix, kept in step;
    ``clash``: the pairs that may never meet (swaps never seat them together)."""

    def __init__(self, n: int, tables: np.ndarray, clash: np.ndarray) -> None:
        self.n = n
        self.tables = tables
        self.clash = clash if clash.any() else None
        self.met = np.zeros((n, n), dtype=np.int64)
        self.member = np.zeros((len(tables), n), dtype=bool)
        self.member[np.arange(len(tables))[:, None], tables] = True
        for row in tables.tolist():
            self._bump(row, 1)

    def _bump(self, row: list[int], delta: int) -> None:
        for a, b in combinations(row, 2):
            self.met[a, b] += delta
            self.met[b, a] += delta

    def swap(self, t1: int, i: int, t2: int, j: int) -> None:
        """Exchange seat ``i`` of table ``t1`` with seat ``j`` of table ``t2``."""
        rows = self.tables[t1].tolist(), self.tables[t2].tolist()
        for row in rows:
            self._bump(row, -1)
        x, b = rows[0][i], rows[1][j]
        self.member[t1, x] = self.member[t2, b] = False
        self.member[t1, b] = self.member[t2, x] = True
        self.tables[t1, i], self.tables[t2, j] = b, x
        for t in (t1, t2):
            self._bump(self.tables[t].tolist(), 1)

    def swap_costs(self, t1: int, x: int) -> np.ndarray:
        """Half the change in the sum of squared pair counts for swapping bot ``x`` out of
        table ``t1`` with each seat of each table (int64 max where illegal)."""
        tables, met, member = self.tables, self.met, self.member
        row = self.tables[t1]
        in_t1 = np.zeros(self.n, dtype=bool)
        in_t1[row] = True
        outside = ~in_t1[tables]
        cost = np.zeros(tables.shape, dtype=np.int64)
        for y in row[row != x].tolist():  # x leaves y; the incoming bot joins y
            cost += (met[y].take(tables) - (met[x, y] - 1)) * ~member[:, y, None]
        joins = (met[x].take(tables) + 1) * outside  # x joins t2's bots not in t1 ...
        cost += joins.sum(1, keepdims=True) - joins
        flat, base = met.ravel(), tables * self.n
        for k in range(SEATS):  # ... and the outgoing bot leaves them
            cost -= flat.take(base + tables[:, k, None]) * outside[:, k, None]
        legal = outside & ~member[:, x, None]
        if self.clash is not None:
            legal &= ~_clashing_swaps(self.clash, tables, row, x)
        return np.where(legal, cost, np.iinfo(np.int64).max)


def _clashing_swaps(clash: np.ndarray, tables: np.ndarray, row: np.ndarray, x: int) -> np.ndarray:
    """Per seat of each table: swapping its bot with ``x`` (of ``row``) would seat one group
    twice, at ``row``'s table (the bot coming in) or at the other (``x`` going there)."""
    incoming = clash[row[row != x]].any(0).take(tables)
    beside_x = clash[x].take(tables)
    return incoming | (beside_x.sum(1, keepdims=True) - beside_x > 0)


def balanced_tables(
    n: int, count: int, rng: Rng, groups: Sequence[int] | None = None
) -> np.ndarray:
    """``count`` tables with ±1 tables per bot, and pair counts within 1 of each other when
    found (restarting the greedy on failure), else within 2 (always reached in testing).

    With groups the counting bounds do not apply (a bot of a large group has fewer partners
    for as many seats, so it meets each one more often): one attempt per window, widening
    from the band of the pairs that may meet to 3 apart, keeps the best reached."""
    clash = clashes(n, groups)
    free = not clash.any()
    tight = pair_band(n, count) if free and pairs_can_balance(n, count) else None
    left = max(ATTEMPT_STEPS, SEARCH_WORK // (count + STEP_OVERHEAD))
    design = None
    while tight and left > 0:
        design = _Design(n, greedy_tables(n, count, rng, groups), clash)
        if _search(design, *tight, min(left, ATTEMPT_STEPS), rng):
            return design.tables
        left -= ATTEMPT_STEPS
    design = design or _Design(n, greedy_tables(n, count, rng, groups), clash)
    lo, hi = pair_band(n, count, groups)
    windows = [(lo - 1, hi + 1)] if lo == hi else [(lo - 1, hi), (lo, hi + 1)]
    if not free:
        windows = [(lo, hi), *windows, (lo - 1 - (lo == hi), hi + 1)]
    for window in windows:
        if _search(design, *window, ATTEMPT_STEPS, rng):
            break
    return design.tables


def _search(design: _Design, lo: int, hi: int, steps: int, rng: Rng) -> bool:
    """Each step takes one out-of-window pair and makes the best swap that resolves it
    (ties at random, sideways moves allowed). True once every pair that may meet is inside
    the window."""
    upper = np.triu_indices(design.n, 1)
    if design.clash is not None:
        allowed = ~design.clash[upper]
        upper = (upper[0][allowed], upper[1][allowed])
    for _ in range(steps):
        counts = design.met[upper]
        bad = np.flatnonzero((counts > hi) | (counts < lo))
        if not bad.size:
            return True
        pick = int(bad[rng.below(bad.size)])
        seat = _defect_seat(design, int(upper[0][pick]), int(upper[1][pick]), hi, rng)
        if seat is None:
            continue
        t1, x = seat
        cost = design.swap_costs(t1, x)
        best = cost.min()
        if best > 0:
            continue
        ties = np.flatnonzero(cost.ravel() == best)
        t2, j = divmod(int(ties[rng.below(ties.size)]), SEATS)
        design.swap(t1, int(np.flatnonzero(design.tables[t1] == x)[0]), t2, j)
    counts = design.met[upper]
    return bool(counts.min() >= lo and counts.max() <= hi)


def _defect_seat(design: _Design, u: int, v: int, hi: int, rng: Rng) -> tuple[int, int] | None:
    """The (table, bot) to move for out-of-window pair ``u, v``: split a too-frequent pair,
    or free a seat beside ``u`` for a too-rare one (None if ``u`` has no such table)."""
    member = design.member
    if design.met[u, v] > hi:
        rows = np.flatnonzero(member[:, u] & member[:, v])
        t1 = int(rows[rng.below(rows.size)])
        return t1, (u, v)[rng.below(2)]
    rows = np.flatnonzero(member[:, u] & ~member[:, v])
    if not rows.size:
        return None
    t1 = int(rows[rng.below(rows.size)])
    others = [b for b in design.tables[t1].tolist() if b != u]
    return t1, others[rng.below(len(others))]


def assign_seats(tables: Sequence[Sequence[int]], n: int, rng: Rng) -> list[tuple[int, ...]]:
    """Order each table's bots into seats 0-3 so that every bot's seat counts differ by at
    most 1, whatever the tables.

    This is an equitable 4-edge-colouring of the table-bot graph (seat = colour). Cutting
    each bot's tables into groups of four gives a bipartite graph of maximum degree 4,
    which König's theorem colours properly with 4 colours: each full group then has every
    seat once and the last group no seat twice.
    """
    per_bot: list[list[int]] = [[] for _ in range(n)]
    for t, row in enumerate(tables):
        for b in row:
            per_bot[b].append(t)
    group: dict[tuple[int, int], int] = {}
    owner: list[int] = []
    for b in range(n):
        for k, t in enumerate(rng.shuffled(per_bot[b])):
            if k % SEATS == 0:
                owner.append(b)
            group[t, b] = len(tables) + len(owner) - 1
    at = [[-1] * SEATS for _ in range(len(tables) + len(owner))]
    for t in rng.shuffled(range(len(tables))):
        for b in rng.shuffled(tables[t]):
            _colour_edge(at, t, group[t, b], rng)
    return [tuple(owner[at[t][c] - len(tables)] for c in range(SEATS)) for t in range(len(tables))]


def _colour_edge(at: list[list[int]], u: int, v: int, rng: Rng) -> None:
    """Colour edge u-v (``at[x][c]`` is x's neighbour through colour c, or -1), first
    freeing a colour at v by swapping two colours along an alternating path if needed."""
    free_u = [c for c in range(SEATS) if at[u][c] < 0]
    common = [c for c in free_u if at[v][c] < 0]
    if common:
        a = common[rng.below(len(common))]
    else:
        a = free_u[rng.below(len(free_u))]
        free_v = [c for c in range(SEATS) if at[v][c] < 0]
        _flip(at, v, a, free_v[rng.below(len(free_v))])
    at[u][a], at[v][a] = v, u


def _flip(at: list[list[int]], start: int, a: int, b: int) -> None:
    """Swap colours a and b on the a/b path from ``start`` (which has b free). In a
    bipartite graph the path cannot reach the other end of the edge being coloured."""
    path = []
    x, c = start, a
    while at[x][c] >= 0:
        y = at[x][c]
        path.append((x, y, c))
        x, c = y, (b if c == a else a)
    for x, y, c in path:
        at[x][c] = at[y][c] = -1
    for x, y, c in path:
        d = b if c == a else a
        at[x][d], at[y][d] = y, x


def spread_order(tables: Sequence[Sequence[int]], n: int, rng: Rng) -> list[int]:
    """An order of the tables in which every bot's share of its own tables grows evenly, so
    a tournament stopped early (or standings read live) has treated the bots alike.

    Greedy: next comes the table whose bots have played the smallest total share of their
    tables (ties in a seeded order).
    """
    rows = np.array(tables, dtype=np.int64).reshape(-1, SEATS)
    share = 1.0 / np.maximum(np.bincount(rows.ravel(), minlength=n), 1)
    holding = [np.flatnonzero((rows == b).any(1)) for b in range(n)]
    tiebreak = np.array(rng.shuffled(range(len(rows))), dtype=np.int64)
    score = np.zeros(len(rows))
    order = []
    for _ in range(len(rows)):
        low = np.flatnonzero(score == score.min())
        t = int(low[np.argmin(tiebreak[low])])
        order.append(t)
        score[t] = np.inf
        for b in rows[t].tolist():
            score[holding[b]] += share[b]
    return order
