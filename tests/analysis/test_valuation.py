"""The master's valuation of a decision (``MasterBot.valuation``): every legal move has an
option, equivalent cards share one, and the bot's own choice is the best of the same scores."""

from __future__ import annotations

import random

import numpy as np
import pytest

from arena.game import BHOOS, CALLING, PAGAT, Deal, Observation
from arena.house.master import MasterBot
from arena.house.master.inference import infer
from arena.house.master.strategy import BATCH, distinct

SAMPLES = 2 * BATCH  # under the bot's MIN_SAMPLES: its search runs exactly these batches


def position(rules, seed: int) -> Observation:
    """The seat to act after random calls and some random cards (or during the calls)."""
    rng = random.Random(seed)
    deal = Deal(rules, seed=seed, dealer=seed % 4)
    calls = rng.choice([0, 1, 2, 3, 4, 4, 4, 4])  # calls made; then cards if all are
    while deal.phase == CALLING and deal.calls.count(None) > 4 - calls:
        deal.call(deal.to_act, rng.choice(list(deal.legal_calls())))
    if calls == 4:
        for _ in range(rng.randrange(48)):
            deal.play(deal.to_act, rng.choice(deal.legal_cards()))
    return deal.observation(deal.to_act)


@pytest.mark.parametrize("rules", [PAGAT, BHOOS], ids=["pagat", "bhoos"])
@pytest.mark.parametrize("seed", range(6))
def test_the_bot_chooses_the_best_option_of_its_valuation(rules, seed):
    obs = position(rules, seed)
    legal = obs.legal_calls or obs.legal_cards
    found = MasterBot(seed=seed, samples=SAMPLES).valuation(obs)
    assert set(found.classes) == set(legal)
    assert set(found.options) == set(found.classes.values())
    assert found.scores.shape == (len(found.options), SAMPLES)
    if obs.phase != CALLING:
        assert list(found.options) == distinct(obs.legal_cards, infer(obs).unseen)
    bot = MasterBot(seed=seed, samples=SAMPLES)
    move = bot.call(obs) if obs.phase == CALLING else bot.play(obs)
    if len(found.options) > 1:  # else the bot answers without searching
        assert move == found.options[int(np.argmax(found.scores.sum(axis=1)))]


def test_equivalent_cards_share_the_lowest_card_of_their_run():
    """Touching cards (no unseen card between them) are one option, the lowest of the run."""
    for seed in range(40):
        obs = position(PAGAT, seed)
        if obs.phase == CALLING:
            continue
        found = MasterBot(seed=seed, samples=SAMPLES).valuation(obs)
        unseen = infer(obs).unseen
        for card, option in found.classes.items():
            assert option <= card and option // 13 == card // 13
            between = sum(1 << c for c in range(option + 1, card))
            assert not unseen & between
        if len(found.classes) > len(found.options):
            return
    raise AssertionError("no position with equivalent cards")
