"""Reading the other seats: how likely a sampled deal makes the calls and cards they chose.

A deal of the unseen cards that the rules allow (``inference``) can still be unlikely: a
seat that held it would not have called or played as it did. Each other seat is read
against the compiled house heuristic (``opponent``): a call or card the model would have
chosen with that hand is likely, anything else keeps a floor (``slip``), so a bot that plays
differently weakens the evidence instead of breaking the search. The likelihood of a deal is
a product over seats, and a seat's factor depends on its own hand only.

``mh_deals`` draws deals in proportion to that likelihood (times the uniform deal): a
Metropolis chain that swaps two hidden cards between two seats, each swap within what the
rules allow, started from a uniform constrained sample (``kernels.sample_hands``).
"""

from __future__ import annotations

import math

import numba
import numpy as np

from arena.game import Observation
from arena.game.tricks import add_card
from arena.house.calling import BHOOS_SHIFT, PAGAT_SHIFT
from arena.house.compiled import legal_nb, lowest_index, popcount
from arena.house.knowledge import scan
from arena.house.master.opponent import (
    estimate_tricks,
    heuristic_call,
    heuristic_play,
    shown_void,
    wants_tricks,
)

FULL = (1 << 52) - 1
CALL_SD = 1.0  # trick-estimate error of a caller unlike the model, in tricks
# Event columns: one row per card another seat played this deal, in play order.
SEAT, CARD, N, LED, BEST_LED, BEST_SPADE, PLAYED, VOIDS, WANTS = range(9)


def history(obs: Observation) -> np.ndarray:
    """The other seats' plays this deal with what each seat saw when it played (int64 rows
    of the columns above; ``VOIDS`` packs the four seats' known voids, 4 bits each)."""
    rules, bhoos = obs.rules, obs.rules.scoring == "bhoos"
    rows = []
    played = 0
    voids = np.zeros(4, np.int64)
    won = [0, 0, 0, 0]
    for trick in (*obs.tricks, obs.current):
        summary = (-1, -1, -1)
        for i, card in enumerate(trick.cards):
            s = trick.seat_of(i)
            if s != obs.seat:
                packed = sum(int(voids[v]) << (4 * v) for v in range(4))
                call = obs.calls[s] or 0
                wants = bool(wants_tricks(won[s], call, bhoos))
                rows.append((s, int(card), i, *summary, played, packed, int(wants)))
            shown_void(int(card), s, summary[0], summary[2], rules.must_trump, voids)
            played |= 1 << card
            summary = add_card(card, *summary)
        if trick.winner is not None:
            won[trick.winner] += 1
    return np.array(rows, np.int64).reshape(-1, 9)


def voids_now(obs: Observation) -> np.ndarray:
    """The voids every seat has shown so far (4-bit suit masks), as the heuristic sees them."""
    return np.array(scan(obs)[1], np.int64)


def call_shift(obs: Observation) -> float:
    return PAGAT_SHIFT if obs.rules.scoring == "pagat" else BHOOS_SHIFT


@numba.njit(cache=True)
def _call_factor(dealt, call, shift, lowest, highest, slip):
    """Chance of ``call`` from a hand ``dealt``: the model's call, or with chance ``slip`` a
    call near the hand's estimate (a Gaussian of the gap, as a relative weight)."""
    model = 1.0 if heuristic_call(dealt, shift, lowest, highest) == call else 0.0
    expected = estimate_tricks(dealt) - shift
    if call == lowest:
        expected = max(expected, call)
    elif call == highest:
        expected = min(expected, call)
    z = (expected - call) / CALL_SD
    return (1.0 - slip) * model + slip * math.exp(-0.5 * z * z)


@numba.njit(cache=True)
def seat_loglik(dealt, seat, call, model):
    """Log-likelihood that ``seat``, dealt ``dealt``, made its call (``call`` < 0: none yet)
    and every play of the events that is its own. ``model`` is (events, call shift, lowest
    and highest call, slip, head code, must_trump)."""
    events, shift, lowest, highest, slip, head, must_trump = model
    total = 0.0
    if call >= 0:
        total += math.log(_call_factor(dealt, call, shift, lowest, highest, slip))
    voids = np.zeros(4, np.int64)
    for e in range(events.shape[0]):
        if events[e, SEAT] != seat:
            continue
        played = events[e, PLAYED]
        hand = dealt & ~played
        led, best_led, best_spade = events[e, LED], events[e, BEST_LED], events[e, BEST_SPADE]
        legal = legal_nb(hand, led, best_led, best_spade, head, must_trump)
        options = popcount(legal)
        if options <= 1:
            continue
        for v in range(4):
            voids[v] = events[e, VOIDS] >> (4 * v) & 15
        unseen = np.int64(FULL) & ~hand & ~played
        choice = heuristic_play(
            hand,
            unseen,
            voids,
            seat,
            events[e, N],
            led,
            best_led,
            best_spade,
            head,
            must_trump,
            events[e, WANTS] != 0,
        )
        model = 1.0 if choice == events[e, CARD] else 0.0
        total += math.log((1.0 - slip) * model + slip / options)
    return total


@numba.njit(cache=True)
def _pick(mask):
    """A uniformly random card of a non-empty ``mask``."""
    for _ in range(int(np.random.random() * popcount(mask))):
        mask &= mask - 1
    return lowest_index(mask)


@numba.njit(cache=True)
def mh_deals(
    n,
    seed,
    start,
    me,
    allowed,
    played_by,
    events,
    calls,
    shift,
    lowest,
    highest,
    slip,
    head,
    must_trump,
    burn,
    thin,
):
    """``n`` deals from a Metropolis chain started at ``start`` (4 hand masks; seat ``me``'s
    is fixed): ``burn`` swaps first, then one deal kept every ``thin`` swaps. A swap trades a
    random hidden card of one seat for one of another, when ``allowed[card]`` (4-bit seat
    masks) lets each card go to its new seat, and is kept with the Metropolis chance of the
    two seats' likelihood ratio. Returns the deals and the chain's last state."""
    np.random.seed(seed)
    model = (events, shift, lowest, highest, slip, head, must_trump)
    hands = start.copy()
    loglik = np.zeros(4)
    seats = np.empty(3, np.int64)
    k = 0
    for s in range(4):
        if s != me and hands[s]:
            loglik[s] = seat_loglik(hands[s] | played_by[s], s, calls[s], model)
            seats[k] = s
            k += 1
    out = np.empty((n, 4), np.int64)
    kept = 0
    step = 0
    while kept < n:
        if k >= 2:
            i = int(np.random.random() * k)
            j = int(np.random.random() * (k - 1))
            a = seats[i]
            b = seats[j + 1 if j >= i else j]
            x, y = _pick(hands[a]), _pick(hands[b])
            if allowed[x] >> b & 1 and allowed[y] >> a & 1:
                new_a = hands[a] ^ (np.int64(1) << x) | (np.int64(1) << y)
                new_b = hands[b] ^ (np.int64(1) << y) | (np.int64(1) << x)
                ll_a = seat_loglik(new_a | played_by[a], a, calls[a], model)
                ll_b = seat_loglik(new_b | played_by[b], b, calls[b], model)
                gain = ll_a + ll_b - loglik[a] - loglik[b]
                if gain >= 0 or np.random.random() < math.exp(gain):
                    hands[a], hands[b], loglik[a], loglik[b] = new_a, new_b, ll_a, ll_b
        step += 1
        if step > burn and (step - burn) % thin == 0:
            out[kept] = hands
            kept += 1
    return out, hands
