"""The master's opponent model is the house heuristic, decision for decision.

``opponent`` re-writes the heuristic for numba; these tests play whole games with the Python
bots and ask the compiled model for every call and card the full heuristic would choose, in
every position the games reach (noisy bots at the table reach far more unusual positions:
voids, refused overtrumps, overshot calls). A single drifted constant, comparison or tie
break fails them.
"""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest

from arena.game import BHOOS, CALLING, PAGAT, Deal, Game, Observation, derive_seed
from arena.game.cards import mask_of
from arena.game.scoring import score_tenths
from arena.game.tricks import head_code, summarise
from arena.house import HeuristicBot
from arena.house.calling import choose_call, estimate_tricks
from arena.house.knowledge import scan
from arena.house.master import opponent
from arena.house.master.policy import MODEL
from arena.house.master.reading import FULL, call_shift, history, seat_loglik, voids_now
from tests.bots.test_house import KNOBS

RULESETS = [PAGAT, BHOOS, KNOBS]


def model_play(obs: Observation) -> int:
    """The card the compiled model plays in ``obs``."""
    hand = mask_of(obs.hand)
    played, voids = scan(obs)
    call = obs.calls[obs.seat] or 0
    return int(
        opponent.heuristic_play(
            np.int64(hand),
            np.int64(FULL & ~hand & ~played),
            np.array(voids, np.int64),
            obs.seat,
            len(obs.current.cards),
            *summarise(obs.current.cards),
            head_code(obs.rules),
            obs.rules.must_trump,
            bool(opponent.wants_tricks(obs.won[obs.seat], call, obs.rules.scoring == "bhoos")),
        )
    )


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
            model = (
                events,
                call_shift(observed),
                rules.min_call,
                rules.max_call,
                0.1,
                head_code(rules),
                rules.must_trump,
            )
            true_ll = seat_loglik(np.int64(dealt[s]), s, observed.calls[s], model)
            assert true_ll > np.log(0.9) * 13
            other = (s + 1) % 4 if (s + 1) % 4 != me else (s + 2) % 4
            mine = dealt[s] & -dealt[s]
            theirs = dealt[other] & -dealt[other]
            swapped = dealt[s] ^ mine | theirs
            if seat_loglik(np.int64(swapped), s, observed.calls[s], model) < true_ll:
                worse += 1
    assert worse >= 12


def _best_line(deal, me, table, bot) -> int:
    """Brute force in Python on the engine's own Deal: the best final score ``me`` can reach
    choosing every card of its own, the others playing the house heuristic."""
    if deal.phase != "playing":
        return table[deal.won[me]]
    seat = deal.to_act
    if seat != me:
        after = copy.deepcopy(deal)
        after.play(seat, bot.play(deal.observation(seat)))
        return _best_line(after, me, table, bot)
    best = None
    for card in deal.legal_cards():
        after = copy.deepcopy(deal)
        after.play(seat, card)
        value = _best_line(after, me, table, bot)
        best = value if best is None else max(best, value)
    return best


@pytest.mark.parametrize("rules", [PAGAT, BHOOS], ids=["pagat", "bhoos"])
def test_exact_search_finds_the_best_own_line(rules):
    """``kernels`` searching the last cards exhaustively reaches the best score a brute force
    over every own line on the engine's Deal reaches, with the others playing the heuristic
    (the kernel searches one card of each run of equivalent cards, so it may at most tie)."""
    from arena.house.master import kernels

    bot = HeuristicBot(seed=0)
    equal = total = 0
    for g in range(40):
        rng = random.Random(g)
        deal = Deal(rules, seed=derive_seed("exact", g), dealer=g % 4)
        while deal.phase == CALLING:
            deal.call(deal.to_act, rng.choice(list(deal.legal_calls())[:4]))
        for _ in range(36 + g % 4):  # random play down to the last three or four tricks
            deal.play(deal.to_act, rng.choice(deal.legal_cards()))
        me = deal.to_act
        table = [score_tenths(deal.calls[me], t, rules) for t in range(14)]
        obs = deal.observation(me)
        for first in deal.legal_cards():
            after = copy.deepcopy(deal)
            after.play(me, first)
            expected = _best_line(after, me, table, bot)
            won = kernels.playouts(
                np.array([deal.hands], np.int64),
                np.array([deal.calls], np.int64),
                np.array([int(first)], np.int64),
                me,
                deal.leader,
                np.array([int(c) for c in deal.trick], np.int64),
                np.array(deal.won, np.int64),
                voids_now(obs),
                head_code(rules),
                rules.must_trump,
                rules.scoring == "bhoos",
                0.5,  # random moves are never taken by the exhaustive search
                np.full(4, MODEL, np.int64),
                13,
                np.array(table, np.int64),
                g,
            )[0]
            assert won.sum() == 13
            got = table[won[me]]
            assert got <= expected
            equal += got == expected
            total += 1
    assert equal >= 0.95 * total, (equal, total)
