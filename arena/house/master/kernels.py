"""The master's compiled search: deal sampling under constraints, and policy playouts.

Compiled with numba and cached on disk (see ``cache``). The trick rules are the engine's own
``legal_mask``, ``add_card`` and ``winning_card``, compiled once in ``arena.house.compiled``, so
the search cannot drift from the referee. Cards are bit indices; a hand is an int64 mask.

Each seat plays out by its policy (``policy``): the opponent model (the compiled house
heuristic), or a small greedy player that sees the sampled deal (a determinisation): a seat
that wants tricks wins them as cheaply as it can and leads cards nobody can beat; a seat that
has made its call (pagat) sheds its highest card that loses and leads low. With few cards
left, the searching seat's own cards are searched exhaustively instead (``_exact``).
"""

from __future__ import annotations

import numba
import numpy as np

from arena.game.cards import ABOVE, SPADE_MASK, SUIT_MASK
from arena.house.cardsets import highest
from arena.house.compiled import add_nb, legal_nb, lowest_index, popcount, winner_nb
from arena.house.knowledge import beats
from arena.house.master.opponent import heuristic_play, shown_void, wants_tricks
from arena.house.master.policy import MODEL


@numba.njit(cache=True)
def others(hands, seat):
    """The cards in every hand but ``seat``'s."""
    out = np.int64(0)
    for s in range(4):
        if s != seat:
            out |= hands[s]
    return out


@numba.njit(cache=True)
def _feasible(count, cap):
    """Hall's condition: the cards left (``count`` per set of seats they may go to) fit the
    seats' free places ``cap`` (a transportation problem on 4 seats is feasible iff, for
    every set S of seats, the cards that can only go into S fit S)."""
    for s in range(1, 16):
        room = 0
        for seat in range(4):
            if s >> seat & 1:
                room += cap[seat]
        need = 0
        for p in range(1, 16):
            if p & ~s == 0:
                need += count[p]
        if need > room:
            return False
    return True


@numba.njit(cache=True)
def sample_hands(n, seed, fixed, cards, allowed, need):
    """``n`` deals of ``cards`` to the seats: card ``cards[i]`` goes to one of the seats in
    the bitmask ``allowed[i]``, seat ``s`` gets exactly ``need[s]`` cards, and ``fixed`` (4
    masks) are added to every deal. Each card goes to an allowed seat with chance in
    proportion to that seat's free places, never into a dead end (checked by Hall's
    condition), so a sample exists whenever the constraints can be met at all."""
    np.random.seed(seed)
    m = cards.shape[0]
    out = np.empty((n, 4), np.int64)
    order = np.arange(m)
    for w in range(n):
        for i in range(m - 1, 0, -1):
            j = int(np.random.random() * (i + 1))
            order[i], order[j] = order[j], order[i]
        count = np.zeros(16, np.int64)
        for i in range(m):
            count[allowed[i]] += 1
        cap = need.copy()
        hands = fixed.copy()
        for i in order:
            card, seats = cards[i], allowed[i]
            count[seats] -= 1
            options = seats
            while options:
                total = 0
                for s in range(4):
                    if options >> s & 1:
                        total += cap[s]
                pick = -1
                r = np.random.random() * total
                for s in range(4):
                    if options >> s & 1 and cap[s] > 0:
                        pick = s
                        r -= cap[s]
                        if r < 0:
                            break
                if pick < 0:
                    break
                cap[pick] -= 1
                if _feasible(count, cap):
                    hands[pick] |= np.int64(1) << card
                    break
                cap[pick] += 1
                options &= ~(1 << pick)
        out[w] = hands
    return out


@numba.njit(cache=True)
def _keep_value(card):
    """Low for cards cheap to give away: side cards by rank, spades above them all."""
    value = card % 13
    if card < 13:
        value += 13
    return value


@numba.njit(cache=True)
def _holds(card, hands, seat, k, led, best_led, best_spade, head, must_trump):
    """Whether ``card`` heads the trick and no later seat can beat it with a legal card."""
    if not beats(card, led, best_led, best_spade):
        return False
    a, b, c = add_nb(card, led, best_led, best_spade)
    for step in range(1, 4 - k):
        other = (seat + step) % 4
        legal = legal_nb(hands[other], a, b, c, head, must_trump)
        while legal:
            low = legal & -legal
            if beats(lowest_index(low), a, b, c):
                return False
            legal ^= low
    return True


@numba.njit(cache=True)
def _lead(hands, seat, wants):
    hand = hands[seat]
    rest = others(hands, seat)
    if wants:  # cash a card nobody can beat or ruff
        for suit in (1, 2, 3, 0):
            cards = hand & SUIT_MASK[suit]
            if not cards:
                continue
            high = highest(cards)
            if rest & ABOVE[high]:
                continue
            ruffed = False
            for s in range(4):
                if s != seat and not hands[s] & SUIT_MASK[suit]:
                    ruffed = ruffed or (suit != 0 and hands[s] & SPADE_MASK != 0)
            if not ruffed:
                return high
    best, best_score = -1, -1
    for suit in (1, 2, 3, 0):
        cards = hand & SUIT_MASK[suit]
        if not cards:
            continue
        low = lowest_index(cards)
        if wants:
            score = 20 - popcount(cards) if suit == 0 else 40 + popcount(cards)
        else:
            score = popcount(rest & ABOVE[low]) + (0 if suit == 0 else 20)
        if score > best_score:
            best, best_score = low, score
    return best


@numba.njit(cache=True)
def _choose(hands, seat, k, led, best_led, best_spade, head, must_trump, wants):
    legal = legal_nb(hands[seat], led, best_led, best_spade, head, must_trump)
    if legal & (legal - 1) == 0:
        return lowest_index(legal)
    if k == 0:
        return _lead(hands, seat, wants)
    best, best_value = -1, 1000
    if wants:
        # the cheapest card that surely wins, else the cheapest card
        for pass_ in range(2):
            rest = legal
            while rest:
                low = rest & -rest
                card = lowest_index(low)
                rest ^= low
                if pass_ == 0 and not _holds(
                    card, hands, seat, k, led, best_led, best_spade, head, must_trump
                ):
                    continue
                if _keep_value(card) < best_value:
                    best, best_value = card, _keep_value(card)
            if best >= 0:
                return best
        return best
    # ducking: the most valuable card that loses now, else one a later seat beats, else low
    for pass_ in range(2):
        best_value = -1
        rest = legal
        while rest:
            low = rest & -rest
            card = lowest_index(low)
            rest ^= low
            if pass_ == 0 and beats(card, led, best_led, best_spade):
                continue
            if pass_ == 1 and _holds(
                card, hands, seat, k, led, best_led, best_spade, head, must_trump
            ):
                continue
            if _keep_value(card) > best_value:
                best, best_value = card, _keep_value(card)
        if best >= 0:
            return best
    rest = legal
    best_value = 1000
    while rest:
        low = rest & -rest
        card = lowest_index(low)
        rest ^= low
        if _keep_value(card) < best_value:
            best, best_value = card, _keep_value(card)
    return best


@numba.njit(cache=True)
def _policy_card(
    hands, seat, k, led, best_led, best_spade, voids, head, must_trump, wants, eps, policy
):
    """The card ``seat`` plays by its ``policy`` (or, with chance ``eps``, a random one)."""
    if eps > 0 and np.random.random() < eps:
        legal = legal_nb(hands[seat], led, best_led, best_spade, head, must_trump)
        for _ in range(int(np.random.random() * popcount(legal))):
            legal &= legal - 1
        return lowest_index(legal)
    if policy[seat] == MODEL:
        return heuristic_play(
            hands[seat],
            others(hands, seat),
            voids,
            seat,
            k,
            led,
            best_led,
            best_spade,
            head,
            must_trump,
            wants,
        )
    return _choose(hands, seat, k, led, best_led, best_spade, head, must_trump, wants)


@numba.njit(cache=True)
def _put(card, seat, hands, won, voids, played, k, led, best_led, best_spade, leader, must_trump):
    """Play ``card`` from ``seat``'s hand. Returns the seat to act next and the trick state
    (leader, cards in the trick, its summary); a finished trick is counted in ``won``."""
    hands[seat] ^= np.int64(1) << card
    shown_void(card, seat, led, best_spade, must_trump, voids)
    led, best_led, best_spade = add_nb(card, led, best_led, best_spade)
    played[k] = card
    k += 1
    if k < 4:
        return (seat + 1) % 4, leader, k, led, best_led, best_spade
    best = winner_nb(led, best_led, best_spade)
    for i in range(4):
        if played[i] == best:
            seat = (leader + i) % 4
    won[seat] += 1
    return seat, seat, 0, -1, -1, -1


@numba.njit(cache=True)
def _start(trick, played):
    """The summary of the trick in progress, its cards copied into ``played``."""
    led, best_led, best_spade, k = -1, -1, -1, 0
    for card in trick:
        led, best_led, best_spade = add_nb(card, led, best_led, best_spade)
        played[k] = card
        k += 1
    return k, led, best_led, best_spade


@numba.njit(cache=True)
def _playout(deal, head, must_trump, bhoos, eps, policy):
    hands, calls, seat, leader, trick, won, first, voids = deal
    played = np.empty(4, np.int64)
    k, led, best_led, best_spade = _start(trick, played)
    for _ in range(popcount(hands[0] | hands[1] | hands[2] | hands[3])):
        if first >= 0:
            card, first = first, -1
        else:
            wants = wants_tricks(won[seat], calls[seat], bhoos)
            card = _policy_card(
                hands,
                seat,
                k,
                led,
                best_led,
                best_spade,
                voids,
                head,
                must_trump,
                wants,
                eps,
                policy,
            )
        seat, leader, k, led, best_led, best_spade = _put(
            card,
            seat,
            hands,
            won,
            voids,
            played,
            k,
            led,
            best_led,
            best_spade,
            leader,
            must_trump,
        )
    return won


@numba.njit(cache=True)
def _options(legal, hands, seat):
    """The legal cards up to equivalence on a known deal: of a run of cards of one suit with
    no card of another hand between them, only the lowest."""
    out = np.empty(13, np.int64)
    n = 0
    rest = others(hands, seat)
    previous = -1
    while legal:
        card = lowest_index(legal)
        legal &= legal - 1
        if previous >= 0 and previous // 13 == card // 13:
            between = ABOVE[previous] & ~ABOVE[card] & ~(np.int64(1) << card)
            if not rest & between:
                previous = card
                continue
        out[n] = card
        n += 1
        previous = card
    return out[:n]


@numba.njit(cache=True)
def _exact(deal, head, must_trump, bhoos, policy, table):
    """Tricks won after ``first`` when the searching seat (``seat``) plays every later card
    to the best final score ``table[tricks]`` on this deal, and the others by their policy
    without random moves: every line of its own choices is played from the start (a
    depth-first walk by replay, each own decision's options counted as it is reached)."""
    hands, calls, seat, leader, trick, won, first, voids = deal
    me = seat
    choice = np.zeros(13, np.int64)
    radix = np.zeros(13, np.int64)
    best_won = won.copy()
    best_score = -(1 << 30)
    played = np.empty(4, np.int64)
    while True:
        h, w, v = hands.copy(), won.copy(), voids.copy()
        s, lead = seat, leader
        k, led, best_led, best_spade = _start(trick, played)
        j = -1  # own decisions made after the first card
        for _ in range(popcount(h[0] | h[1] | h[2] | h[3])):
            if j < 0 and s == me:
                card = first
                j = 0
            elif s == me:
                legal = legal_nb(h[s], led, best_led, best_spade, head, must_trump)
                options = _options(legal, h, s)
                radix[j] = options.shape[0]
                card = options[choice[j]]
                j += 1
            else:
                wants = wants_tricks(w[s], calls[s], bhoos)
                card = _policy_card(
                    h, s, k, led, best_led, best_spade, v, head, must_trump, wants, 0.0, policy
                )
            s, lead, k, led, best_led, best_spade = _put(
                card, s, h, w, v, played, k, led, best_led, best_spade, lead, must_trump
            )
        if table[w[me]] > best_score:
            best_score, best_won = table[w[me]], w
        i = j - 1
        while i >= 0 and choice[i] + 1 >= radix[i]:
            choice[i] = 0
            i -= 1
        if i < 0:
            return best_won
        choice[i] += 1


@numba.njit(cache=True)
def playouts(
    hands,
    calls,
    first,
    to_act,
    leader,
    trick,
    won,
    voids,
    head,
    must_trump,
    bhoos,
    eps,
    policy,
    exact,
    table,
    seed,
):
    """Tricks won by each seat after playing out row ``w``: deal ``hands[w]`` with calls
    ``calls[w]``, the seat to act playing ``first[w]`` (or its policy's card when -1), every
    later card chosen by the seat's ``policy`` (SIGHTED or MODEL; or, with chance ``eps``,
    uniformly at random). ``voids`` are the voids shown before the playout starts (the model
    reads them as the heuristic does). The searching seat plays its later cards by the
    MODEL, which sees only what is out, when the search must not count on knowing the
    hidden hands later. When the seat to act holds at most ``exact`` cards and
    plays ``first[w]``, its later cards are searched exhaustively on the deal instead
    (``_exact``, for the final score ``table[tricks]``), the others playing their policy."""
    np.random.seed(seed)
    n = hands.shape[0]
    out = np.empty((n, 4), np.int64)
    for w in range(n):
        deal = (
            hands[w].copy(),
            calls[w],
            to_act,
            leader,
            trick,
            won.copy(),
            first[w],
            voids.copy(),
        )
        if first[w] >= 0 and popcount(hands[w, to_act]) <= exact:
            out[w] = _exact(deal, head, must_trump, bhoos, policy, table)
        else:
            out[w] = _playout(deal, head, must_trump, bhoos, eps, policy)
    return out
