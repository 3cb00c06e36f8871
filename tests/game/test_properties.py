"""Property tests over random seeded deals, random legal play, both presets and random knob
combinations. The oracles below are written from the rule sentences, independently of the
engine's bitmask code."""

from __future__ import annotations

import copy
import json
import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.game import (
    BHOOS,
    CALLING,
    CARDS,
    OVER,
    PAGAT,
    PLAYING,
    Card,
    Deal,
    Game,
    Ruleset,
    cards_of,
    game_record,
    legal_plays,
    score_tenths,
    trick_winner,
    validate_record,
)
from tests.game.helpers import play_game

SPADES = 0
SETTINGS = settings(max_examples=60, deadline=None)


# -- oracles, from the rule sentences -------------------------------------------------------


def oracle_legal(hand: list[Card], trick: list[Card], rules: Ruleset) -> set[Card]:
    if not trick:
        return set(hand)  # any card may be led
    led = trick[0].suit
    follow = [c for c in hand if c.suit == led]
    if follow:  # must follow suit
        top = max(c.rank for c in trick if c.suit == led)
        trumped = led != SPADES and any(c.suit == SPADES for c in trick)
        head = rules.must_head == "always" or (rules.must_head == "unless_trumped" and not trumped)
        higher = [c for c in follow if c.rank > top]
        return set(higher if head and higher else follow)
    spades = [c for c in hand if c.suit == SPADES]
    if rules.must_trump and spades:
        top_spade = max((c.rank for c in trick if c.suit == SPADES), default=-1)
        high_enough = [c for c in spades if c.rank > top_spade]
        if high_enough:
            return set(high_enough)
    return set(hand)  # void with no spade high enough: any card


def oracle_winner(trick: list[Card]) -> int:
    spades = [c for c in trick if c.suit == SPADES]
    pool = spades or [c for c in trick if c.suit == trick[0].suit]
    return trick.index(max(pool, key=lambda c: c.rank))


def oracle_points(call: int, won: int, rules: Ruleset) -> int:
    """In tenths of a point."""
    if rules.scoring == "bhoos":
        return 10 * call + (won - call) if won >= call else -10 * call
    if won in (call, call + 1):
        return 10 * (rules.bonus_points if call >= rules.bonus_call else call)
    return -10 * call


# -- strategies -----------------------------------------------------------------------------


@st.composite
def random_rules(draw: st.DrawFn) -> Ruleset:
    low = draw(st.integers(1, 13))
    return Ruleset(
        name="random",
        min_call=low,
        max_call=draw(st.integers(low, 13)),
        must_head=draw(st.sampled_from(["never", "unless_trumped", "always"])),
        must_trump=draw(st.booleans()),
        scoring=draw(st.sampled_from(["pagat", "bhoos"])),
        deals_per_game=draw(st.integers(1, 3)),
        redeal=draw(st.sampled_from(["none", "no_spade", "no_face", "no_spade_or_face"])),
        bonus_call=draw(st.integers(1, 14)),
        bonus_points=draw(st.integers(1, 20)),
    )


any_rules = st.one_of(st.sampled_from([PAGAT, BHOOS]), random_rules())
seeds = st.integers(0, 2**63 - 1)
seats = st.integers(0, 3)


# -- legality and trick winners against the oracles -----------------------------------------


@settings(max_examples=300, deadline=None)
@given(rules=any_rules, seed=seeds, trick_len=st.integers(0, 3), hand_len=st.integers(1, 13))
def test_legal_plays_follow_the_rule_sentences(
    rules: Ruleset, seed: int, trick_len: int, hand_len: int
) -> None:
    deck = list(CARDS)
    random.Random(seed).shuffle(deck)
    trick, hand = deck[:trick_len], deck[trick_len : trick_len + hand_len]
    got = legal_plays(hand, trick, rules)
    assert got, "a seat to act always has a legal card"
    assert set(got) <= set(hand)
    assert got == sorted(got)
    assert set(got) == oracle_legal(hand, trick, rules), (hand, trick)


@settings(max_examples=300, deadline=None)
@given(seed=seeds)
def test_trick_winner_is_the_highest_spade_else_the_highest_of_the_led_suit(seed: int) -> None:
    trick = random.Random(seed).sample(CARDS, 4)
    assert trick_winner(trick) == oracle_winner(trick)


@settings(max_examples=100, deadline=None)
@given(rules=any_rules, call=st.integers(1, 13), won=st.integers(0, 13))
def test_scores_follow_the_ruleset(rules: Ruleset, call: int, won: int) -> None:
    assert score_tenths(call, won, rules) == oracle_points(call, won, rules)


# -- whole games ----------------------------------------------------------------------------


def _check_finished_deal(deal: Deal) -> None:
    rules = deal.rules
    assert deal.phase == OVER and len(deal.tricks) == 13
    # every card played exactly once, each seat exactly the hand it was dealt
    played = [c for t in deal.tricks for c in t.cards]
    assert sorted(played) == CARDS
    by_seat: list[list[Card]] = [[], [], [], []]
    for t in deal.tricks:
        for k, card in enumerate(t.cards):
            by_seat[t.seat_of(k)].append(card)
    assert [sorted(cs) for cs in by_seat] == [cards_of(h) for h in deal.dealt]
    # the dealer's right leads first; each trick's winner leads the next
    assert deal.tricks[0].leader == (deal.dealer + 1) % 4
    for before, after in zip(deal.tricks, deal.tricks[1:], strict=False):
        assert after.leader == before.winner
    for t in deal.tricks:
        assert t.winner == t.seat_of(oracle_winner(list(t.cards)))
    assert deal.won == [sum(t.winner == s for t in deal.tricks) for s in range(4)]
    assert all(rules.min_call <= c <= rules.max_call for c in deal.calls)
    expected = [oracle_points(c, w, rules) for c, w in zip(deal.calls, deal.won, strict=True)]
    assert deal.points() == expected


@SETTINGS
@given(rules=any_rules, seed=seeds, first_dealer=seats, play_seed=seeds)
def test_random_games_keep_every_invariant(
    rules: Ruleset, seed: int, first_dealer: int, play_seed: int
) -> None:
    rng = random.Random(play_seed)
    game = Game(rules, seed=seed, first_dealer=first_dealer)
    totals = [0, 0, 0, 0]
    while not game.over:
        deal = game.deal
        assert deal.dealer == (first_dealer + len(game.finished)) % 4
        assert deal.scores_before == tuple(totals)
        assert sorted(c for h in deal.hands for c in cards_of(h)) == CARDS
        assert [h.bit_count() for h in deal.hands] == [13] * 4
        order = []
        while deal.phase == CALLING:
            order.append(deal.to_act)
            game.call(deal.to_act, rng.choice(deal.legal_calls()))
        assert order == [(deal.dealer + k) % 4 for k in (1, 2, 3, 4)]
        while deal.phase == PLAYING:
            seat = deal.to_act
            legal = deal.legal_cards()
            assert legal, "legal moves are never empty for the seat to act"
            hand = cards_of(deal.hands[seat])
            assert set(legal) == oracle_legal(hand, list(deal.trick), rules)
            assert all(not deal.legal_cards(s) for s in range(4) if s != seat)
            game.play(seat, rng.choice(legal))
        _check_finished_deal(deal)
        totals = [t + p for t, p in zip(totals, deal.points(), strict=True)]
    assert game.scores == totals
    record = game_record(game)
    assert validate_record(record) is None
    assert validate_record(json.loads(json.dumps(record))) is None


@SETTINGS
@given(rules=any_rules, seed=seeds, first_dealer=seats, play_seed=seeds)
def test_the_same_seeds_give_the_same_game(
    rules: Ruleset, seed: int, first_dealer: int, play_seed: int
) -> None:
    one = play_game(Game(rules, seed, first_dealer), random.Random(play_seed))
    two = play_game(Game(rules, seed, first_dealer), random.Random(play_seed))
    assert game_record(one) == game_record(two)


@settings(max_examples=100, deadline=None)
@given(seed=seeds, dealer=seats, index=st.integers(0, 9), rules=any_rules)
def test_the_shuffle_depends_only_on_the_seed_and_the_dealer(
    seed: int, dealer: int, index: int, rules: Ruleset
) -> None:
    base = Deal(PAGAT, seed=seed, dealer=dealer)
    same = Deal(
        rules.with_(redeal="none"), seed=seed, dealer=dealer, index=index, scores=(1, 2, 3, 4)
    )
    assert same.hands == base.hands
    # the dealer only decides who gets the first card: the seat to its right
    for other in range(4):
        moved = Deal(PAGAT, seed=seed, dealer=other)
        for k in range(4):
            assert moved.hands[(other + 1 + k) % 4] == base.hands[(dealer + 1 + k) % 4]
    # with a redeal rule the result is still a function of seed, dealer and rule
    again = Deal(rules, seed=seed, dealer=dealer, index=index)
    assert again.hands == Deal(rules, seed=seed, dealer=dealer).hands


# -- tampered records -----------------------------------------------------------------------

MUTATIONS = ["swap", "winner", "call", "seed", "deal_seed", "hand", "leader", "won"]


def _mutate(record: dict, kind: str, rng: random.Random) -> tuple[dict, list[str]]:
    """A tampered copy of ``record`` and the parts its rejection message must contain."""
    rec = copy.deepcopy(record)
    rules = Ruleset.from_dict(rec["rules"])
    d = rng.randrange(len(rec["deals"]))
    deal = rec["deals"][d]
    tricks = deal["tricks"]
    where = f"deal {d + 1}: "
    if kind == "swap":  # a card swapped between two tricks, played by different seats
        t = rng.randrange(12)
        pairs = [
            (i, j)
            for i in range(4)
            for j in range(4)
            if (tricks[t]["leader"] + i) % 4 != (tricks[t + 1]["leader"] + j) % 4
        ]
        i, j = rng.choice(pairs)
        a, b = tricks[t]["cards"][i], tricks[t + 1]["cards"][j]
        tricks[t]["cards"][i], tricks[t + 1]["cards"][j] = b, a
        return rec, [where + f"trick {t + 1}, card {i + 1}: ", f"cannot play {b}: not in its hand"]
    if kind == "winner":
        t = rng.randrange(13)
        tricks[t]["winner"] = (tricks[t]["winner"] + rng.randint(1, 3)) % 4
        return rec, [where + f"trick {t + 1} winner: "]
    if kind == "leader":
        t = rng.randrange(13)
        tricks[t]["leader"] = (tricks[t]["leader"] + rng.randint(1, 3)) % 4
        return rec, [where + f"trick {t + 1} leader: "]
    if kind == "call":
        seat = rng.randrange(4)
        call, won = deal["calls"][seat], deal["won"][seat]
        same = score_tenths(call, won, rules)
        changes = [
            n
            for n in range(rules.min_call, rules.max_call + 1)
            if score_tenths(n, won, rules) != same
        ]
        if changes:  # a legal call with different points: the points no longer add up
            deal["calls"][seat] = rng.choice(changes)
            return rec, [where + "points: "]
        deal["calls"][seat] = rules.max_call + 1  # no legal alternative: an illegal call
        return rec, [where + f"seat {seat} cannot call"]
    if kind == "seed":
        rec["seed"] = rec["seed"] + rng.randint(1, 1000)
        return rec, ["deal 1: seed: "]
    if kind == "deal_seed":
        deal["seed"] = deal["seed"] + rng.randint(1, 1000)
        return rec, [where + "seed: "]
    if kind == "hand":  # one card moved between two hands
        s1, s2 = rng.sample(range(4), 2)
        h1, h2 = deal["hands"][s1].split(), deal["hands"][s2].split()
        i, j = rng.randrange(13), rng.randrange(13)
        h1[i], h2[j] = h2[j], h1[i]
        deal["hands"][s1], deal["hands"][s2] = " ".join(h1), " ".join(h2)
        return rec, [where + "hands: "]
    assert kind == "won"
    seat = rng.randrange(4)
    deal["won"][seat] += rng.choice([-1, 1])
    return rec, [where + "tricks won: "]


@settings(max_examples=100, deadline=None)
@given(
    rules=any_rules,
    seed=seeds,
    play_seed=seeds,
    kind=st.sampled_from(MUTATIONS),
    mutation_seed=seeds,
)
def test_tampered_records_are_rejected_where_they_were_changed(
    rules: Ruleset, seed: int, play_seed: int, kind: str, mutation_seed: int
) -> None:
    rules = rules.with_(deals_per_game=min(rules.deals_per_game, 2))
    record = game_record(play_game(Game(rules, seed), random.Random(play_seed)))
    bad, parts = _mutate(record, kind, random.Random(mutation_seed))
    message = validate_record(bad)
    assert message is not None, f"{kind} accepted"
    for part in parts:
        assert part in message, f"{kind}: {part!r} not in {message!r}"
    assert validate_record(record) is None  # the original is untouched and sound


def test_mutation_kinds_are_all_exercised() -> None:
    rng = random.Random(0)
    record = game_record(play_game(Game(BHOOS, 1), random.Random(1)))
    seen = Counter()
    for _ in range(200):
        kind = rng.choice(MUTATIONS)
        bad, parts = _mutate(record, kind, rng)
        message = validate_record(bad)
        assert message is not None and all(p in message for p in parts), (kind, message)
        seen[kind] += 1
    assert set(seen) == set(MUTATIONS)
