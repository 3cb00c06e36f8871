"""Decisions judged by the true deal and by the seat's knowledge (arena.analysis.hindsight):
a bot that knows the hands follows the truth where the two part, an honest one does not."""

from __future__ import annotations

import random

from arena.analysis.hindsight import FOLLOWED, Hindsight, hindsight, match_hindsight
from arena.analysis.replay import turns
from arena.game import CALLING, PAGAT, Deal
from arena.house.master import MasterBot
from arena.house.master.inference import infer, knowing
from benchmarks.cheats import Cheat, MemoryCheat
from tests.analysis.matches import heuristics, play


def midgame(seed: int) -> tuple[Deal, int]:
    """A deal some tricks in, and the seat to act."""
    rng = random.Random(seed)
    deal = Deal(PAGAT, seed=seed, dealer=seed % 4)
    while deal.phase == CALLING:
        deal.call(deal.to_act, rng.choice(list(deal.legal_calls())))
    for _ in range(rng.randrange(4, 30)):
        deal.play(deal.to_act, rng.choice(deal.legal_cards()))
    return deal, deal.to_act


def test_known_hands_leave_each_card_to_its_holder_and_the_samples_are_the_true_deal():
    deal, seat = midgame(3)
    obs = deal.observation(seat)
    held = {s: deal.hands[s] for s in range(4) if s != seat}
    know = knowing(infer(obs), held)
    for s, hand in held.items():
        for card in range(52):
            if hand >> card & 1:
                assert know.allowed(card) == 1 << s
    sampled = MasterBot(seed=1, samples=64)._reader(obs, know)(32, 7)  # (deals, seats) masks
    for s, hand in held.items():
        assert set(sampled[:, s].tolist()) == {hand}
    assert set(sampled[:, seat].tolist()) == {deal.hands[seat]}


def test_one_known_hand_is_kept_and_the_others_still_sampled():
    deal, seat = midgame(5)
    obs = deal.observation(seat)
    other = (seat + 1) % 4
    hand = deal.hands[other]
    sampled = MasterBot(seed=1, samples=64)._reader(obs, knowing(infer(obs), {other: hand}))(32, 3)
    assert set(sampled[:, other].tolist()) == {hand}
    rest = [s for s in range(4) if s not in (seat, other)]
    assert len({tuple(row) for row in sampled[:, rest].tolist()}) > 1


def test_a_memory_cheat_follows_the_truth_in_later_games_and_an_honest_master_does_not():
    seed = 12
    board = [MemoryCheat("cheat", seed, 128), Cheat("honest", seed + 1, 128)]
    record = play([*board, *heuristics(seed)[:2]], seed, games=4, deals=5)
    cheat, honest = match_hindsight(record, [0, 1], seed=2)

    def later(h: Hindsight) -> tuple[int, int]:
        told = [t for t in h.telling if t.seen is None and t.game > 0 and t.followed != "neither"]
        return sum(t.followed == "truth" for t in told), len(told)

    hits, n = later(cheat)
    assert n >= 5 and hits / n >= 0.8
    honest_hits, honest_n = later(honest)
    assert honest_n >= 5 and honest_hits / honest_n <= 0.6
    assert {t.followed for t in cheat.telling + honest.telling} <= set(FOLLOWED)
    # every other entrant's hand was tried for the pair tests
    assert {t.seen for t in cheat.telling} - {None} <= {1, 2, 3}
    assert Hindsight.from_dict(cheat.to_dict()) == cheat


def test_only_the_bots_own_choices_are_judged_and_the_answer_is_reproducible():
    seed = 4
    record = play(heuristics(seed), seed, games=1, deals=1)
    mine = [t for t in turns(record, 2) if not t.auto]
    found = hindsight(record, 2, seed=9)
    assert 0 < found.judged <= len(mine)
    assert {(t.game, t.deal, t.step) for t in found.telling} <= {
        (t.game, t.deal, t.step) for t in mine
    }
    for t in found.telling:
        assert t.truth != t.knowledge
    assert hindsight(record, 2, seed=9) == found
