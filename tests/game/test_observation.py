"""A seat's observation holds exactly what that seat may know: its own hand, every call,
every played card with trick leaders and winners, tricks won and scores -- nothing else."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator
from typing import Any

import pytest

from arena.game import (
    CALLING,
    OVER,
    PLAYING,
    Card,
    Deal,
    Game,
    Observation,
    Ruleset,
    Trick,
    cards_of,
)
from tests.game.helpers import PRESET_IDS, PRESETS, call_all, play_randomly

both = pytest.mark.parametrize("rules", PRESETS, ids=PRESET_IDS)

PUBLIC_FIELDS = {
    "rules",
    "seat",
    "dealer",
    "deal",
    "phase",
    "hand",
    "calls",
    "tricks",
    "current",
    "won",
    "scores",
    "to_act",
    "legal_cards",
    "legal_calls",
}


def leaves(value: Any, path: str = "obs") -> Iterator[tuple[str, Any]]:
    """Every leaf value of an observation, with its path; fails on any unexpected type (a
    mutable list or a reference into the engine would let a bot see or change hidden state)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        assert isinstance(value, Observation | Trick | Ruleset), f"{path}: {type(value)}"
        for f in dataclasses.fields(value):
            yield from leaves(getattr(value, f.name), f"{path}.{f.name}")
    elif isinstance(value, tuple):
        for i, item in enumerate(value):
            yield from leaves(item, f"{path}[{i}]")
    else:
        assert value is None or isinstance(value, int | str), f"{path}: {type(value).__name__}"
        yield path, value


def check_observation(deal: Deal, seat: int, scores: tuple[int, ...]) -> Observation:
    obs = deal.observation(seat)
    assert {f.name for f in dataclasses.fields(obs)} == PUBLIC_FIELDS
    # own hand, and only the own hand
    assert obs.hand == tuple(cards_of(deal.hands[seat]))
    played = {c for t in deal.tricks for c in t.cards} | set(deal.trick)
    hidden = set()
    for other in range(4):
        if other != seat:
            hidden |= set(cards_of(deal.hands[other]))
    for path, value in leaves(obs):
        if isinstance(value, Card):
            assert value not in hidden, f"{path} shows {value}, held by another seat"
            assert value in played or value in obs.hand, f"{path}: {value}"
        elif isinstance(value, int) and not isinstance(value, bool):
            assert abs(value) < 10_000, f"{path} = {value} (a hidden mask or seed?)"
    # everything public
    assert obs.seat == seat and obs.dealer == deal.dealer and obs.deal == deal.index
    assert obs.rules == deal.rules and obs.phase == deal.phase and obs.to_act == deal.to_act
    assert obs.calls == tuple(deal.calls)
    assert obs.tricks == tuple(deal.tricks)
    assert [(t.leader, t.winner) for t in obs.tricks] == [(t.leader, t.winner) for t in deal.tricks]
    assert obs.current == Trick(deal.leader, tuple(deal.trick))
    assert obs.won == tuple(deal.won)
    assert obs.scores == scores
    acting = seat == deal.to_act
    assert obs.legal_cards == (tuple(deal.legal_cards()) if acting else ())
    assert obs.legal_calls == (tuple(deal.legal_calls()) if acting else ())
    if acting and deal.phase == PLAYING:
        assert obs.legal_cards and set(obs.legal_cards) <= set(obs.hand)
    if acting and deal.phase == CALLING:
        assert obs.legal_calls == tuple(range(deal.rules.min_call, deal.rules.max_call + 1))
    return obs


@both
@pytest.mark.parametrize("seed", range(2))
def test_every_seat_sees_exactly_what_it_may_know_at_every_point(rules: Ruleset, seed: int) -> None:
    rng = random.Random(seed)
    deal = Deal(rules, seed=seed, dealer=seed % 4)
    while True:
        for seat in range(4):
            check_observation(deal, seat, (0, 0, 0, 0))
        if deal.phase == OVER:
            break
        if deal.phase == CALLING:
            deal.call(deal.to_act, rng.choice(deal.legal_calls()))
        else:
            deal.play(deal.to_act, rng.choice(deal.legal_cards()))


@both
def test_a_game_observation_carries_the_cumulative_scores_before_the_deal(
    rules: Ruleset,
) -> None:
    game = Game(rules.with_(deals_per_game=3), seed=8, first_dealer=2)
    rng = random.Random(8)
    while not game.over:
        before = tuple(game.scores)
        for seat in range(4):
            obs = game.observation(seat)
            assert obs.deal == len(game.finished)
            assert obs.dealer == (2 + obs.deal) % 4
            check_observation(game.deal, seat, before)
        play_randomly(game, rng)
    assert any(game.scores)


@both
def test_an_observation_is_an_immutable_snapshot(rules: Ruleset) -> None:
    deal = Deal(rules, seed=4)
    call_all(deal)
    first = deal.observation(deal.to_act)
    copy = dataclasses.replace(first)
    play_randomly(deal, random.Random(4), stop_after=9)
    assert first == copy
    assert len(first.hand) == 13 and first.tricks == () and first.current.cards == ()
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.hand = ()  # type: ignore[misc]


@both
def test_calls_appear_as_they_are_made(rules: Ruleset) -> None:
    deal = Deal(rules, seed=6, dealer=1)
    expected: list[int | None] = [None] * 4
    for k in range(4):
        seat = deal.to_act
        for viewer in range(4):
            assert deal.observation(viewer).calls == tuple(expected)
        n = rules.min_call + k
        deal.call(seat, n)
        expected[seat] = n
    assert all(deal.observation(v).calls == tuple(expected) for v in range(4))
