"""The heuristic's view of a trick agrees with the rules engine: one copy of the rules.

At every decision of random deals under every head/trump knob: the View's trick summary is
the state machine's, ``beats`` says exactly which cards would take the trick as the engine
scores it (checked by completing the trick with cards that cannot head it and asking
``trick_winner``), and every void ``scan`` reports is real.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.game import BHOOS, CALLING, CARDS, OVER, PAGAT, Deal, trick_winner
from arena.game.cards import SUIT_MASK, SUIT_OF
from arena.house.knowledge import View, scan

knobs = st.builds(
    lambda head, trump, base: base.with_(must_head=head, must_trump=trump),
    st.sampled_from(["never", "unless_trumped", "always"]),
    st.booleans(),
    st.sampled_from([PAGAT, BHOOS]),
)


def fillers(trick: list[int], card: int, count: int) -> list[int] | None:
    """``count`` cards not in the trick that can never head it: low cards of a side suit that
    is neither led nor spades (the engine must not score them above ``card``)."""
    used = {*trick, card}
    led = SUIT_OF[trick[0]] if trick else SUIT_OF[card]
    pool = [c for c in range(13, 52) if SUIT_OF[c] != led and c not in used]
    return pool[:count] if len(pool) >= count else None


@settings(max_examples=120, deadline=None)
@given(rules=knobs, seed=st.integers(0, 2**31 - 1))
def test_view_summary_beats_and_voids_agree_with_the_engine(rules, seed):
    rng = random.Random(seed)
    deal = Deal(rules, seed=seed, dealer=seed % 4)
    while deal.phase == CALLING:
        deal.call(deal.to_act, rng.choice(list(deal.legal_calls())))
    while deal.phase != OVER:
        seat = deal.to_act
        obs = deal.observation(seat)
        view = View(obs)
        assert (view.led, view.best_led, view.best_spade) == deal.summary
        trick = [int(c) for c in deal.trick]
        for card in range(52):
            if card in trick:
                continue
            rest = fillers(trick, card, 3 - len(trick))
            if rest is None:
                continue
            complete = [CARDS[c] for c in (*trick, card, *rest)]
            heads = trick_winner(complete) == len(trick)
            assert view.beats(card) == heads, (trick, card, rest)
        _, voids = scan(obs)
        for s in range(4):
            for suit in range(4):
                if voids[s] >> suit & 1:
                    assert not deal.hands[s] & SUIT_MASK[suit], (s, suit)
        deal.play(seat, rng.choice(deal.legal_cards()))
