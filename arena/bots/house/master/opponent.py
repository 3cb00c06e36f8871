"""The house heuristic compiled: the master's model of how another seat calls and plays.

The master reads the other seats' calls and cards against this model (``reading``) and lets
them play by it in its playouts (``kernels``). It is the heuristic of ``arena.bots.house``
(``calling``, ``play``, ``knowledge``) decision for decision, written for numba: the same
constants, the same order of floating-point operations, the same tie-breaking (the first of
equal cards, lowest index first). ``tests/bots/test_master_opponent.py`` plays whole deals
and checks every decision against the Python bot, so the two cannot drift apart silently.

A seat's view is its own hand, the cards nobody has shown it (``unseen``: every card neither
in its hand nor played), the voids the play has shown (``voids[s]``, a 4-bit suit mask per
seat) and the trick so far, exactly what ``knowledge.View`` holds.
"""

from __future__ import annotations

import numba

from arena.bots.house.calling import (
    ACE,
    BASE,
    JACK,
    KING,
    LONG_SPADE,
    PER_SPADE,
    QUEEN,
    SHORT_SUIT,
)
from arena.bots.house.master.bits import SPADES_BITS, above, heads, suit_mask, top
from arena.bots.house.play import SAFE
from arena.game.playout import legal_nb, lowest_index, popcount

SHORT_0, SHORT_1 = SHORT_SUIT


# -- calling -----------------------------------------------------------------------------
@numba.njit(cache=True)
def _spade_tricks(spades):
    n = popcount(spades)
    value = PER_SPADE * n + LONG_SPADE * max(0, n - 4)
    if spades >> ACE & 1:
        value += 0.9
    if spades >> KING & 1:
        value += 0.85 if n >= 2 else 0.15
    if spades >> QUEEN & 1 and n >= 3:
        value += 0.6
    if spades >> JACK & 1 and n >= 4:
        value += 0.5
    return value


@numba.njit(cache=True)
def _side_tricks(cards, can_ruff):
    n = popcount(cards)
    value = 0.0
    if can_ruff and n == 0:
        value = SHORT_0
    elif can_ruff and n == 1:
        value = SHORT_1
    ace, king, queen = cards >> ACE & 1, cards >> KING & 1, cards >> QUEEN & 1
    value += 0.93 * ace
    if king:
        value += 0.57 if ace else (0.65 if n >= 2 else 0.0)
    if queen and n >= 3 and (ace or king):
        value += 0.13 if ace and king else 0.3
    return value


@numba.njit(cache=True)
def estimate_tricks(hand):
    """``calling.estimate_tricks``."""
    spades = hand & SPADES_BITS
    total = BASE + _spade_tricks(spades)
    for suit in range(1, 4):
        total += _side_tricks((hand >> (13 * suit)) & SPADES_BITS, spades != 0)
    return total


@numba.njit(cache=True)
def heuristic_call(hand, shift, lowest, highest):
    """``calling.choose_call(estimate_tricks(hand))`` for calls ``lowest``..``highest``."""
    call = int(estimate_tricks(hand) - shift + 0.5)
    return min(max(call, lowest), highest)


# -- what the seat sees ------------------------------------------------------------------
@numba.njit(cache=True)
def _holders(voids, seat, suit):
    k = 0
    for s in range(4):
        if s != seat and not voids[s] >> suit & 1:
            k += 1
    return k


@numba.njit(cache=True)
def _p_void(s, suit, seat, unseen, voids):
    if voids[s] >> suit & 1:
        return 1.0
    k = _holders(voids, seat, suit)
    return ((k - 1) / k) ** float(popcount(unseen & suit_mask(suit)))


@numba.njit(cache=True)
def _overruff_free(spade, seat, n, led, unseen, voids):
    higher = popcount(unseen & above(spade))
    if not higher:
        return 1.0
    k = _holders(voids, seat, 0)
    p_high = 1.0 - ((k - 1) / k) ** float(higher) if k else 0.0
    p = 1.0
    for j in range(1, 4 - n):
        s = (seat + j) & 3
        if not voids[s] & 1:
            p *= 1.0 - _p_void(s, led, seat, unseen, voids) * p_high
    return p


@numba.njit(cache=True)
def _hold_prob(card, seat, n, led, unseen, voids):
    """``View.hold_prob``: rough chance that ``card``, heading the trick now, wins it."""
    suit = card // 13
    lead = suit if led < 0 else led
    if suit == 0 and lead != 0:
        return _overruff_free(card, seat, n, led, unseen, voids)
    p = 1.0
    higher = popcount(unseen & above(card))
    if higher:
        m = 0
        for j in range(1, 4 - n):
            if not voids[(seat + j) & 3] >> suit & 1:
                m += 1
        if m:
            k = _holders(voids, seat, suit)
            p = ((k - m) / k) ** float(higher)
    if suit and unseen & SPADES_BITS:
        for j in range(1, 4 - n):
            s = (seat + j) & 3
            if not voids[s] & 1:
                p *= 1.0 - _p_void(s, suit, seat, unseen, voids)
    return p


@numba.njit(cache=True)
def _master(card, unseen):
    return not unseen & above(card)


# -- wanting tricks ----------------------------------------------------------------------
@numba.njit(cache=True)
def _keep_value(card, unseen):
    value = card % 13
    if card < 13:
        value += 13
    if _master(card, unseen):
        value += 8
    return value


@numba.njit(cache=True)
def _lead_low(hand, unseen):
    if hand & SPADES_BITS:
        for suit in range(1, 4):
            cards = hand & suit_mask(suit)
            if popcount(cards) == 1 and not _master(top(cards), unseen):
                return top(cards)
    best, best_len = -1, 0
    for suit in range(1, 4):
        length = popcount(hand & suit_mask(suit))
        if length > best_len:
            best, best_len = suit, length
    if best < 0:
        return lowest_index(hand)
    return lowest_index(hand & suit_mask(best))


@numba.njit(cache=True)
def _lead_to_win(hand, unseen, voids, seat):
    best, best_p = -1, SAFE
    for suit in range(1, 4):
        cards = hand & suit_mask(suit)
        if cards and _master(top(cards), unseen):
            p = _hold_prob(top(cards), seat, 0, -1, unseen, voids)
            if p > best_p:
                best, best_p = top(cards), p
    spades = hand & SPADES_BITS
    drawing = best < 0 or popcount(spades) >= 3
    if drawing and spades and unseen & SPADES_BITS and _master(top(spades), unseen):
        return top(spades)
    if best >= 0:
        return best
    return _lead_low(hand, unseen)


@numba.njit(cache=True)
def _take(legal, hand, unseen, voids, seat, n, led, best_led, best_spade):
    if n == 0:
        return _lead_to_win(hand, unseen, voids, seat)
    rest = legal
    while rest:  # lowest first: the cheapest card that probably holds
        card = lowest_index(rest)
        rest &= rest - 1
        if heads(card, led, best_led, best_spade) and (
            n == 3 or _hold_prob(card, seat, n, led, unseen, voids) >= SAFE
        ):
            return card
    best, best_value = -1, 1 << 30
    rest = legal
    while rest:
        card = lowest_index(rest)
        rest &= rest - 1
        value = _keep_value(card, unseen)
        if value < best_value:
            best, best_value = card, value
    return best


# -- avoiding tricks ---------------------------------------------------------------------
@numba.njit(cache=True)
def _danger(card, unseen):
    value = 2 * (card % 13) - 3 * popcount(unseen & above(card))
    if card < 13:
        value += 12
    return value


@numba.njit(cache=True)
def _lead_to_lose(hand, unseen, voids, seat):
    best, best_p = -1, 2.0
    for suit in (1, 2, 3, 0):
        cards = hand & suit_mask(suit)
        if cards:
            low = lowest_index(cards)
            p = _hold_prob(low, seat, 0, -1, unseen, voids)
            if p < best_p:
                best, best_p = low, p
    return best


@numba.njit(cache=True)
def _duck(legal, hand, unseen, voids, seat, n, led, best_led, best_spade):
    if n == 0:
        return _lead_to_lose(hand, unseen, voids, seat)
    best, best_value = -1, -(1 << 30)
    rest = legal
    while rest:  # the most dangerous card that loses
        card = lowest_index(rest)
        rest &= rest - 1
        if not heads(card, led, best_led, best_spade) and _danger(card, unseen) > best_value:
            best, best_value = card, _danger(card, unseen)
    if best >= 0:
        return best
    rest = legal
    if n == 3:
        while rest:
            card = lowest_index(rest)
            rest &= rest - 1
            if _danger(card, unseen) > best_value:
                best, best_value = card, _danger(card, unseen)
        return best
    best_p = 2.0
    while rest:
        card = lowest_index(rest)
        rest &= rest - 1
        p = _hold_prob(card, seat, n, led, unseen, voids)
        if p < best_p:
            best, best_p = card, p
    return best


# -- the decision ------------------------------------------------------------------------
@numba.njit(cache=True)
def heuristic_play(
    hand, unseen, voids, seat, n, led, best_led, best_spade, head, must_trump, wants
):
    """``HeuristicBot.play``: ``take`` when one more trick helps the seat, else ``duck``."""
    legal = legal_nb(hand, led, best_led, best_spade, head, must_trump)
    if legal & (legal - 1) == 0:
        return lowest_index(legal)
    if wants:
        return _take(legal, hand, unseen, voids, seat, n, led, best_led, best_spade)
    return _duck(legal, hand, unseen, voids, seat, n, led, best_led, best_spade)


@numba.njit(cache=True)
def wants_tricks(won, call, bhoos):
    """``heuristic.wants_tricks``: under pagat a made call ducks, an overshot one spoils."""
    return bhoos or won < call or won > call + 1


@numba.njit(cache=True)
def shown_void(card, seat, led, best_spade, must_trump, voids):
    """``knowledge.scan`` for one card: what ``card`` played by ``seat`` shows of its voids."""
    if led >= 0 and card // 13 != led:
        voids[seat] |= 1 << led
        if must_trump and card >= 13 and best_spade < 0:
            voids[seat] |= 1
