"""The house heuristic compiled: the master's model of how another seat calls and plays.

The master reads the other seats' calls and cards against this model (``reading``) and lets
them play by it in its playouts (``kernels``). There is one copy of the heuristic: its
functions in ``arena.house`` (``calling``, ``knowledge``, ``play``) are written so that
numba compiles them as they are. This module registers them with numba (as functions the
compiled code may call), gives numba its own ``cardsets`` arithmetic (numba has no
``int.bit_count``), and compiles the entry points the search calls.
``tests/bots/test_master_opponent.py`` plays whole games and checks every decision of the
compiled model against the Python bot.

A seat's view is its own hand, the cards nobody has shown it (``unseen``: every card neither
in its hand nor played), the voids the play has shown (``voids[s]``, a 4-bit suit mask per
seat) and the trick so far, exactly what ``knowledge.View`` holds.
"""

from __future__ import annotations

import numba
from numba.extending import overload, register_jitable

from arena.game import tricks
from arena.house import calling, cardsets, heuristic, knowledge, play
from arena.house.compiled import lowest_index, popcount


@overload(cardsets.popcount)
def _popcount(mask):
    return lambda mask: popcount(mask)


@overload(cardsets.lowest)
def _lowest(mask):
    return lambda mask: lowest_index(mask)


@overload(cardsets.highest)
def _highest(mask):
    def highest(mask):
        index = -1
        while mask:
            mask >>= 1
            index += 1
        return index

    return highest


for _function in (
    tricks.add_card,
    tricks.winning_card,
    tricks.legal_mask,
    calling.spade_tricks,
    calling.side_tricks,
    calling.estimate_tricks,
    calling.call_for,
    knowledge.beats,
    knowledge.holders,
    knowledge.p_void,
    knowledge.hold_prob,
    knowledge.overruff_free,
    knowledge.is_master,
    knowledge.shown_void,
    play.choose_card,
    play.take,
    play.keep_value,
    play.lead_to_win,
    play.lead_low,
    play.duck,
    play.danger,
    play.lead_to_lose,
    heuristic.wants,
):
    register_jitable(_function)

estimate_tricks = numba.njit(cache=True)(calling.estimate_tricks)
shown_void = numba.njit(cache=True)(knowledge.shown_void)
wants_tricks = numba.njit(cache=True)(heuristic.wants)


@numba.njit(cache=True)
def heuristic_call(hand, shift, lowest, highest):
    """``HeuristicBot.call`` for calls ``lowest``..``highest`` (``shift`` by the scoring)."""
    return calling.call_for(calling.estimate_tricks(hand), shift, lowest, highest)


@numba.njit(cache=True)
def heuristic_play(
    hand, unseen, voids, seat, n, led, best_led, best_spade, head, must_trump, wants
):
    """``HeuristicBot.play`` for the seat's view and whether it ``wants`` tricks."""
    legal = tricks.legal_mask(hand, led, best_led, best_spade, head, must_trump)
    if legal & (legal - 1) == 0:
        return cardsets.lowest(legal)
    return play.choose_card(legal, hand, unseen, voids, seat, n, led, best_led, best_spade, wants)
