"""The master bot: legal under every ruleset, sound inference, samples that respect it and
every play seen, and a think time that stays within its share of the clock (read through an
injected clock, never timed on the wall)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.game import BHOOS, CALLING, PAGAT, Deal, Observation, Ruleset, derive_seed
from arena.game.cards import CARDS, SUIT_MASK, mask_of
from arena.game.tricks import add_card, head_code, legal_mask
from arena.house import HOUSE_BOTS, HeuristicBot
from arena.house.knowledge import scan
from arena.house.master import MasterBot
from arena.house.master.inference import infer
from arena.house.master.policy import MODEL, SIGHTED
from arena.house.master.strategy import BATCH, distinct, think_seconds
from tests.bots.test_house import KNOBS, play_game

RULESETS = [PAGAT, BHOOS, KNOBS]
IDS = [r.name for r in RULESETS]


def midway(rules: Ruleset, seed: int, cards: int) -> Deal:
    """A deal after its calls and ``cards`` cards of random play (random play shows far more
    voids, discards and refused overtrumps than sensible play does)."""
    rng = random.Random(seed)
    deal = Deal(rules, seed=seed, dealer=seed % 4)
    while deal.phase == CALLING:
        deal.call(deal.to_act, rng.choice(list(deal.legal_calls())))
    for _ in range(cards):
        deal.play(deal.to_act, rng.choice(deal.legal_cards()))
    return deal


positions = given(
    rules=st.sampled_from(RULESETS),
    seed=st.integers(0, 2**31 - 1),
    cards=st.integers(0, 50),
)


def plays_seen(obs: Observation):
    """Every card played so far: (trick number, seat, card, trick summary before it)."""
    for number, trick in enumerate((*obs.tricks, obs.current)):
        summary = (-1, -1, -1)
        for i, card in enumerate(trick.cards):
            yield number, trick.seat_of(i), card, summary
            summary = add_card(card, *summary)


@settings(max_examples=150, deadline=None)
@positions
def test_inference_never_excludes_a_card_the_player_holds(rules, seed, cards):
    deal = midway(rules, seed, cards)
    seat = deal.to_act
    know = infer(deal.observation(seat))
    _, voids = scan(deal.observation(seat))
    for s in range(4):
        if s == seat:
            continue
        assert not know.excluded[s] & deal.hands[s], (s, know.excluded[s], deal.hands[s])
        assert know.need[s] == deal.hands[s].bit_count()
        for suit in range(4):  # a suit the player was shown void in is out of its hand
            if voids[s] >> suit & 1:
                assert not SUIT_MASK[suit] & know.unseen & ~know.excluded[s]
    assert know.unseen == sum(deal.hands[s] for s in range(4) if s != seat)


@settings(max_examples=60, deadline=None)
@positions
def test_sampled_hands_respect_voids_and_make_every_play_seen_legal(rules, seed, cards):
    deal = midway(rules, seed, cards)
    seat = deal.to_act
    obs = deal.observation(seat)
    know = infer(obs)
    _, voids = scan(obs)
    bot = MasterBot(seed)
    hands = bot._reader(obs, know)(40, seed)  # the Metropolis chain keeps to the rules too
    later: dict[tuple[int, int], int] = {}  # (seat, trick) -> cards it played from then on
    plays = list(plays_seen(obs))
    for number, s, card, _ in plays:
        for t in range(number + 1):
            later[s, t] = later.get((s, t), 0) | 1 << card
    head, trump = head_code(rules), rules.must_trump
    for sample in hands:
        assert int(sample[seat]) == know.hand
        others = [int(sample[s]) for s in range(4) if s != seat]
        assert sum(h.bit_count() for h in others) == know.unseen.bit_count()
        assert others[0] | others[1] | others[2] == know.unseen
        for s in range(4):
            if s == seat:
                continue
            hand = int(sample[s])
            assert hand.bit_count() == know.need[s]
            for suit in range(4):
                if voids[s] >> suit & 1:
                    assert not hand & SUIT_MASK[suit], (s, suit)
        for number, s, card, summary in plays:
            if s == seat:
                continue
            held = int(sample[s]) | later[s, number]
            assert legal_mask(held, *summary, head, trump) >> card & 1, (number, s, card)


@pytest.mark.parametrize("rules", RULESETS, ids=IDS)
def test_master_plays_legal_calls_and_cards_over_many_deals(rules):
    """Four games per ruleset, the master in each seat in turn (play_game checks each move)."""
    for i in range(4):
        bots = [HeuristicBot(4 * i + k) for k in range(4)]
        bots[i] = MasterBot(seed=i, samples=32)
        game = play_game(rules, derive_seed("master-legal", rules.name, i), bots)
        assert len(game.finished) == rules.deals_per_game


def test_master_is_a_house_bot_and_deterministic_without_a_clock():
    house = HOUSE_BOTS["master"](seed=5)
    assert isinstance(house, MasterBot) and house.seed == 5
    deal = midway(PAGAT, 11, 9)
    obs = deal.observation(deal.to_act)
    first = [MasterBot(seed=5, samples=64).play(obs) for _ in range(2)]
    assert first[0] == first[1] and first[0] in obs.legal_cards


class FakeClock:
    """A clock that moves ``step`` seconds at every read: the bot's only sense of time."""

    def __init__(self, step: float) -> None:
        self.now, self.step, self.reads = 1000.0, step, 0

    def __call__(self) -> float:
        self.reads += 1
        self.now += self.step
        return self.now


def busy_position() -> Observation:
    """A position with several options that are not equivalent."""
    for seed in range(100):
        deal = midway(PAGAT, seed, 4)
        obs = deal.observation(deal.to_act)
        if len(distinct(obs.legal_cards, infer(obs).unseen)) >= 3:
            return obs
    raise AssertionError("no position with three distinct options")


@pytest.mark.parametrize("step_share", [0.001, 0.05, 0.5, 2.0])
def test_decisions_stay_within_their_share_of_the_clock(step_share):
    obs = busy_position()
    decision_ms, bank_ms = 1000 + 10_000, 10_000
    budget = think_seconds(obs, decision_ms, bank_ms, 0.5)
    clock = FakeClock(budget * step_share)
    bot = MasterBot(seed=1, share=0.5, clock=clock)
    bot.set_clock(decision_ms, bank_ms)
    first_read = clock.now + clock.step
    assert bot.play(obs) in obs.legal_cards
    elapsed = clock.now - first_read  # from the bot's first clock read to its last
    if step_share <= 1:
        assert elapsed <= budget + 1e-9
    else:  # one batch is the least a decision does: it stops right after it
        assert bot.last_samples == BATCH
    if step_share == 0.5:
        assert bot.last_samples <= 2 * BATCH
    if step_share == 0.001:
        assert clock.reads >= 1 + 2  # it searched several batches, reading the clock each time


def test_think_time_is_a_share_of_allowance_plus_an_even_part_of_the_bank():
    obs = busy_position()  # pagat, 5 deals a game, deal 0, 13 - 1 cards in hand
    left = len(obs.hand) + 4 * 14
    assert think_seconds(obs, 1000, 0, 0.5) == pytest.approx(0.5)
    assert think_seconds(obs, 1000 + 7000, 7000, 0.5) == pytest.approx(0.5 * (1 + 7 / left))
    assert think_seconds(obs, 3000, 3000, 0.5) == pytest.approx(0.5 * 3 / left)
    for decision_ms, bank_ms in [(1, 0), (200, 100), (50_000, 49_000)]:
        assert think_seconds(obs, decision_ms, bank_ms, 0.3) <= 0.3 * decision_ms / 1000


def test_the_clock_is_used_once_per_decision():
    """A clock set for one decision does not leak into the next (which then uses samples)."""
    obs = busy_position()
    clock = FakeClock(0.0)
    bot = MasterBot(seed=2, samples=BATCH, clock=clock)
    bot.set_clock(1000, 0)
    bot.play(obs)
    bot.play(obs)
    assert bot.last_samples == BATCH


def test_equivalent_cards_are_searched_once():
    hand = mask_of(range(13, 19))  # 2H..7H
    unseen = (1 << 52) - 1 & ~hand
    unseen &= ~(1 << 15)  # 4H has been played: 3H and 5H are now touching too
    legal = tuple(c for c in range(13, 19) if c != 15)
    cards = tuple(CARDS[c] for c in legal)
    assert distinct(cards, unseen) == [CARDS[13]]
    assert distinct(cards, unseen | 1 << 15) == [CARDS[13], CARDS[16]]


def test_calls_come_from_the_legal_range_and_value_the_scoring():
    """A hand with every spade calls high under both scorings; a hand of low side cards low."""
    top = Deal(PAGAT, seed=0, dealer=3, hands=spade_hands())
    obs = top.observation(0)
    assert obs.phase == CALLING and obs.to_act == 0
    assert MasterBot(seed=1, samples=64).call(obs) >= 11
    low = Deal(BHOOS, seed=0, dealer=0, hands=spade_hands()).observation(1)
    assert MasterBot(seed=1, samples=64).call(low) == 1


def spade_hands() -> list[int]:
    """Seat 0 holds all spades; seat 1 the low hearts, diamonds and clubs (2-5) plus 6H."""
    spades = SUIT_MASK[0]
    low = 0
    for suit in (1, 2, 3):
        low |= ((1 << 4) - 1) << (13 * suit)
    low |= 1 << (13 + 4)
    rest = [c for c in range(52) if not (spades | low) >> c & 1]
    return [spades, low, mask_of(rest[:13]), mask_of(rest[13:])]


def test_sampler_never_dead_ends_on_tight_constraints():
    """Cards that only one seat may hold, and seats that may hold only some cards: every
    sample still gives every seat exactly its count."""
    from arena.house.master import kernels

    cards = np.arange(13, 52, dtype=np.int64)
    allowed = np.array([2 if c < 26 else (12 if c < 39 else 14) for c in cards], np.int64)
    need = np.array([0, 13, 13, 13], np.int64)
    fixed = np.array([SUIT_MASK[0], 0, 0, 0], np.int64)
    hands = kernels.sample_hands(200, 3, fixed, cards, allowed, need)
    for row in hands:
        assert [int(h).bit_count() for h in row] == [13, 13, 13, 13]
        assert int(row[1]) & SUIT_MASK[1] == SUIT_MASK[1]
        assert not int(row[1]) & SUIT_MASK[2]


@settings(max_examples=60, deadline=None)
@positions
def test_playouts_finish_the_deal_from_any_position(rules, seed, cards):
    """Every remaining trick goes to someone, tricks already won stay won, whatever policy
    each seat plays by (the model reads the voids the deal has shown)."""
    from arena.house.master import kernels

    deal = midway(rules, seed, cards)
    n = 8
    hands = np.tile(np.array(deal.hands, np.int64), (n, 1))
    calls = np.tile(np.array(deal.calls, np.int64), (n, 1))
    first = np.array([deal.legal_cards()[0]] * (n // 2) + [-1] * (n // 2), np.int64)
    trick = np.array([int(c) for c in deal.trick], np.int64)
    voids = np.array(scan(deal.observation(deal.to_act))[1], np.int64)
    own = np.array([SIGHTED] * 4, np.int64)
    own[deal.to_act] = MODEL
    for policy in (np.full(4, SIGHTED), own, np.full(4, MODEL)):
        won = kernels.playouts(
            hands,
            calls,
            first,
            deal.to_act,
            deal.leader,
            trick,
            np.array(deal.won, np.int64),
            voids,
            head_code(rules),
            rules.must_trump,
            rules.scoring == "bhoos",
            0.05,
            policy.astype(np.int64),
            4,
            np.arange(14, dtype=np.int64),
            seed,
        )
        assert (won.sum(axis=1) == 13).all()
        assert (won >= np.array(deal.won)).all()


def test_stale_kernels_are_dropped_when_any_source_they_use_changes(tmp_path):
    """numba checks a cached kernel against its own file only: a changed callee or constant
    (the heuristic, the trick rules) must empty the cache instead."""
    from arena.house.master.cache import drop_stale

    (tmp_path / "kernels.py").write_text("x = 1\n")
    pycache = tmp_path / "__pycache__"  # none yet: a fresh clone that writes no bytecode
    drop_stale(tmp_path)  # the first process stamps the sources it builds from...
    entry = pycache / "kernels.playouts-1.py311.nbi"
    entry.write_bytes(b"built by the first process")
    assert not drop_stale(tmp_path)  # ...so the next one keeps what it built
    assert entry.exists()
    (tmp_path / "opponent.py").write_text("SAFE = 0.5\n")
    assert drop_stale(tmp_path)  # a new module the kernels call: nothing can be trusted
    assert not entry.exists()
    entry.write_bytes(b"new")
    assert not drop_stale(tmp_path)  # same sources: the cache stays
    assert entry.exists()
    (tmp_path / "notes.py").write_text("x = 2\n")  # not compiled: the cache stays
    assert not drop_stale(tmp_path)
    (tmp_path / "opponent.py").write_text("SAFE = 0.6\n")  # a module the kernels call
    assert drop_stale(tmp_path)
    assert not entry.exists()
