"""The master's opponent model is the house heuristic, decision for decision.

``opponent`` re-writes the heuristic for numba; these tests play whole games with the Python
bots and ask the compiled model for every call and card the full heuristic would choose, in
every position the games reach (noisy bots at the table reach far more unusual positions:
voids, refused overtrumps, overshot calls). A single drifted constant, comparison or tie
break fails them.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from arena.bots.house import HeuristicBot
from arena.bots.house.calling import choose_call, estimate_tricks
from arena.bots.house.master import opponent
from arena.bots.house.master.reading import call_shift, history, model_play, seat_loglik
from arena.game import BHOOS, CALLING, PAGAT, Game, derive_seed
from arena.game.cards import mask_of
from arena.game.tricks import head_code
from tests.bots.test_house import KNOBS

RULESETS = [PAGAT, BHOOS, KNOBS]


def test_estimate_and_call_agree_on_random_hands():
    rng = random.Random(7)
    for _ in range(3000):
        hand = mask_of(rng.sample(range(52), 13))
        assert opponent.estimate_tricks(np.int64(hand)) == estimate_tricks(hand)
        for scoring, shift in (("pagat", 0.35), ("bhoos", 0.7)):
            expected = choose_call(estimate_tricks(hand), scoring, tuple(range(1, 9)))
            assert opponent.heuristic_call(np.int64(hand), shift, 1, 8) == expected


@pytest.mark.parametrize("rules", RULESETS, ids=[r.name for r in RULESETS])
def test_every_card_matches_the_python_heuristic(rules):
    full = HeuristicBot(seed=0)
    checked = 0
    for g in range(12):
        noise = (0.0, 0.15, 0.4)[g % 3]
        bots = [HeuristicBot(seed=4 * g + s, noise=noise) for s in range(4)]
        game = Game(rules, derive_seed("opponent-model", rules.name, g), first_dealer=g % 4)
        while not game.over:
            seat = game.deal.to_act
            obs = game.observation(seat)
            if obs.phase == CALLING:
                game.call(seat, bots[seat].call(obs))
                continue
            if len(obs.legal_cards) > 1:
                assert model_play(obs) == int(full.play(obs)), (g, obs)
                checked += 1
            game.play(seat, bots[seat].play(obs))
    assert checked > 1500


def test_loglik_rewards_the_hand_that_was_played():
    """After a deal of full heuristics, each seat's true hand explains its plays with no
    slip at all; swapping two of its cards for another seat's usually does not."""
    rules = PAGAT
    worse = 0
    for g in range(8):
        bots = [HeuristicBot(seed=s) for s in range(4)]
        game = Game(rules, derive_seed("loglik", g), first_dealer=g % 4)
        dealt = list(game.deal.hands)
        observed = None
        while game.deal.phase != "done" and not game.over:
            seat = game.deal.to_act
            obs = game.observation(seat)
            if obs.phase != CALLING and len(obs.hand) == 2:
                observed = obs
                break
            move = bots[seat].call(obs) if obs.phase == CALLING else bots[seat].play(obs)
            (game.call if obs.phase == CALLING else game.play)(seat, move)
        assert observed is not None
        events = history(observed)
        me = observed.seat
        for s in range(4):
            if s == me:
                continue
            args = (
                s,
                events,
                observed.calls[s],
                call_shift(observed),
                rules.min_call,
                rules.max_call,
                0.1,
                head_code(rules),
                rules.must_trump,
            )
            true_ll = seat_loglik(np.int64(dealt[s]), *args)
            assert true_ll > np.log(0.9) * 13
            other = (s + 1) % 4 if (s + 1) % 4 != me else (s + 2) % 4
            mine = dealt[s] & -dealt[s]
            theirs = dealt[other] & -dealt[other]
            swapped = dealt[s] ^ mine | theirs
            if seat_loglik(np.int64(swapped), *args) < true_ll:
                worse += 1
    assert worse >= 12
