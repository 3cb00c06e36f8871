"""The search fast path: numba-compiled batches of uniformly random playouts that run the
same trick-rule functions as the state machine.

The kernel draws from numba's ``np.random``, which reproduces NumPy's legacy Mersenne
Twister stream for the same seed; so ``np.random.RandomState(seed).random_sample`` lets the
state machine replay every playout of a batch decision for decision.
"""

from __future__ import annotations

import copy
import random
import sys
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.game import BHOOS, OVER, PAGAT, Deal, Ruleset, cards_of
from tests.game import playouts as fast
from tests.game.helpers import PRESET_IDS, PRESETS, call_all, play_randomly
from tests.game.playouts import Position, playouts

both = pytest.mark.parametrize("rules", PRESETS, ids=PRESET_IDS)
knobs = st.builds(
    lambda head, trump, base: base.with_(must_head=head, must_trump=trump),
    st.sampled_from(["never", "unless_trumped", "always"]),
    st.booleans(),
    st.sampled_from([PAGAT, BHOOS]),
)
positions = {"rules": knobs, "seed": st.integers(0, 2**31 - 1), "played": st.integers(0, 51)}


def position(rules: Ruleset, seed: int, played: int) -> Deal:
    """A deal in its playing phase after ``played`` random cards (0..51)."""
    deal = Deal(rules, seed=seed, dealer=seed % 4)
    play_randomly(deal, random.Random(seed), stop_after=played)
    return deal


def replay(deal: Deal, draw, hands: list[int] | None = None) -> list[int]:
    """Play ``deal`` out in the state machine with playout's documented choice rule: of the
    legal cards, lowest index first, take number ``int(r * count)``."""
    deal = copy.deepcopy(deal)
    if hands is not None:
        deal.hands = list(hands)
    while deal.phase != OVER:
        legal = deal.legal_cards()
        deal.play(deal.to_act, legal[int(draw() * len(legal))])
    return deal.won


def resample(deal: Deal, rng: random.Random) -> list[int]:
    """The unseen cards (the other seats' hands) dealt anew, each seat keeping its count."""
    me = deal.to_act
    others = [s for s in range(4) if s != me]
    pool = [c for s in others for c in cards_of(deal.hands[s])]
    rng.shuffle(pool)
    hands = [0, 0, 0, 0]
    hands[me] = deal.hands[me]
    for s in others:
        n = deal.hands[s].bit_count()
        for c in pool[:n]:
            hands[s] |= 1 << c
        pool = pool[n:]
    return hands


@settings(max_examples=100, deadline=None)
@given(**positions)
def test_playouts_tricks_sum_to_13_including_those_already_won(
    rules: Ruleset, seed: int, played: int
) -> None:
    deal = position(rules, seed, played)
    pos = Position.from_deal(deal)
    before = copy.deepcopy(pos)
    out = playouts(pos, 16, seed=seed)
    assert out.shape == (16, 4)
    assert (out.sum(axis=1) == 13).all()
    assert (out >= np.array(deal.won)).all()
    assert pos == before, "playouts must not change the position they are given"


@settings(max_examples=100, deadline=None)
@given(**positions)
def test_playouts_agree_with_the_state_machine_given_the_same_random_stream(
    rules: Ruleset, seed: int, played: int
) -> None:
    deal = position(rules, seed, played)
    out = playouts(Position.from_deal(deal), 8, seed=seed)
    stream = np.random.RandomState(seed)
    for row in out:
        assert replay(deal, stream.random_sample) == row.tolist()


@settings(max_examples=50, deadline=None)
@given(**positions)
def test_playouts_with_sampled_hands_agree_with_the_state_machine(
    rules: Ruleset, seed: int, played: int
) -> None:
    deal = position(rules, seed, played)
    rng = random.Random(seed)
    samples = [resample(deal, rng) for _ in range(6)]
    out = playouts(Position.from_deal(deal), 6, seed=seed, hands=np.array(samples))
    stream = np.random.RandomState(seed)
    for row, hands in zip(out, samples, strict=True):
        assert replay(deal, stream.random_sample, hands) == row.tolist()


def test_sampled_hands_must_have_one_row_per_playout() -> None:
    deal = position(PAGAT, 1, 5)
    pos = Position.from_deal(deal)
    with pytest.raises(ValueError, match=r"shape \(3, 4\)"):
        playouts(pos, 3, hands=np.array([pos.hands] * 2))


def _lockstep(deal: Deal, rng: random.Random):
    """A stand-in for ``np.random.random`` that, at each decision of the kernel's Python
    source, checks the kernel's seat and legal mask against a state machine driven alongside,
    then plays the card the kernel is about to pick. It reads the kernel's locals through the
    caller's frame: a test-only look inside, so the fast path needs no hook."""

    def random_value() -> float:
        local = sys._getframe(1).f_locals
        seat, legal = int(local["seat"]), int(local["legal"])
        assert seat == deal.to_act, "playout and state machine disagree on the seat to act"
        assert legal == deal.legal_mask(seat), (
            f"playout allows {cards_of(legal)}, the rules allow {deal.legal_cards()}"
        )
        r = rng.random()
        deal.play(seat, cards_of(legal)[int(r * legal.bit_count())])
        return r

    return random_value


@settings(max_examples=60, deadline=None)
@given(**positions)
def test_every_playout_decision_is_legal_in_the_state_machine(
    rules: Ruleset, seed: int, played: int
) -> None:
    """Runs the kernel's own source (``py_func``) decision by decision next to the state
    machine: the kernel's legal cards are exactly the rules' at every step."""
    deal = position(rules, seed, played)
    shadow = copy.deepcopy(deal)
    pos = Position.from_deal(deal)
    kernel = fast._one_playout.py_func
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(np.random, "random", _lockstep(shadow, random.Random(seed)))
        won = kernel(
            np.array(pos.hands, dtype=np.int64),
            pos.to_act,
            pos.leader,
            np.array(pos.trick, dtype=np.int64),
            np.array(pos.won, dtype=np.int64),
            pos.head,
            pos.must_trump,
        )
    assert shadow.phase == OVER
    assert won.tolist() == shadow.won


def _exact_expectation(deal: Deal) -> list[Fraction]:
    """Expected tricks per seat when every legal card is chosen with equal probability."""
    if deal.phase == OVER:
        return [Fraction(w) for w in deal.won]
    legal = deal.legal_cards()
    total = [Fraction(0)] * 4
    for card in legal:
        after = copy.deepcopy(deal)
        after.play(after.to_act, card)
        total = [t + e for t, e in zip(total, _exact_expectation(after), strict=True)]
    return [t / len(legal) for t in total]


@both
def test_playouts_choose_uniformly_among_legal_cards(rules: Ruleset) -> None:
    """Statistical sanity without looking inside: from a position three tricks from the end,
    the mean tricks won per seat over many playouts match the exact expectation under
    uniformly random legal play (computed by enumerating the state machine)."""
    for seed in range(40):
        deal = position(rules, seed, 41)
        expected = _exact_expectation(deal)
        if any(e.denominator > 2 for e in expected):  # a position where choices matter
            break
    else:
        raise AssertionError("no position with uncertain outcomes found")
    n = 20_000
    out = playouts(Position.from_deal(deal), n, seed=7)
    for seat in range(4):
        mean, exp = out[:, seat].mean(), float(expected[seat])
        sd = out[:, seat].std() or 1.0
        assert abs(mean - exp) < 5 * sd / n**0.5, (seat, mean, exp)


def test_the_same_seed_gives_the_same_batch() -> None:
    pos = Position.from_deal(position(BHOOS, 3, 0))
    a, b, c = playouts(pos, 50, seed=1), playouts(pos, 50, seed=1), playouts(pos, 50, seed=2)
    assert (a == b).all()
    assert not (a == c).all()


@both
def test_position_from_deal_copies_the_playing_state(rules: Ruleset) -> None:
    deal = position(rules, 3, 10)
    pos = Position.from_deal(deal)
    assert pos.hands == deal.hands and pos.hands is not deal.hands
    assert (pos.to_act, pos.leader, pos.won) == (deal.to_act, deal.leader, deal.won)
    assert pos.trick == [int(c) for c in deal.trick]
    assert pos.must_trump == rules.must_trump
    sampled = resample(deal, random.Random(3))
    assert Position.from_deal(deal, sampled).hands == sampled


@both
def test_playouts_start_only_in_the_playing_phase(rules: Ruleset) -> None:
    deal = Deal(rules, seed=1)
    with pytest.raises(ValueError, match="playing phase"):
        Position.from_deal(deal)
    call_all(deal)
    Position.from_deal(deal)
    play_randomly(deal, random.Random(1))
    with pytest.raises(ValueError, match="playing phase"):
        Position.from_deal(deal)
