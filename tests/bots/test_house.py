"""House bots: legal and deterministic everywhere, and ordered in strength as advertised."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest

from arena.game import (
    BHOOS,
    CALLING,
    PAGAT,
    Card,
    Deal,
    Game,
    derive_seed,
    game_record,
    mask_of,
    parse_card,
    parse_cards,
)
from arena.house import HOUSE_BOTS, BotStrategy, HeuristicBot, HouseBot, RandomBot
from arena.house.calling import choose_call, estimate_tricks
from arena.house.knowledge import View, scan

KNOBS = PAGAT.with_(name="knobs", must_head="always", must_trump=False, min_call=1, max_call=13)
REDEAL = BHOOS.with_(name="redeal", redeal="no_spade_or_face", deals_per_game=3)
RULESETS = [PAGAT, BHOOS, KNOBS, REDEAL]


def play_game(rules, seed: int, bots: Sequence[BotStrategy]) -> Game:
    """Play a whole game, checking every answer against the legal moves it was offered."""
    game = Game(rules, seed, first_dealer=seed % 4)
    while not game.over:
        seat = game.deal.to_act
        obs = game.observation(seat)
        if obs.phase == CALLING:
            n = bots[seat].call(obs)
            assert type(n) is int and n in obs.legal_calls, (bots[seat], n, obs.legal_calls)
            game.call(seat, n)
        else:
            card = bots[seat].play(obs)
            assert isinstance(card, Card) and card in obs.legal_cards, (bots[seat], card)
            game.play(seat, card)
    return game


def means_by_role(
    rules, n_games: int, lineup: Callable[[int], list[tuple[str, BotStrategy]]], tag: str
) -> dict[str, float]:
    """Mean points per deal of each role (a label per seat) over ``n_games`` seeded games."""
    totals: dict[str, int] = {}
    deals: dict[str, int] = {}
    for i in range(n_games):
        seats = lineup(i)
        game = play_game(rules, derive_seed(tag, rules.name, i), [bot for _, bot in seats])
        for (role, _), score in zip(seats, game.scores, strict=True):
            totals[role] = totals.get(role, 0) + score
            deals[role] = deals.get(role, 0) + rules.deals_per_game
    return {role: totals[role] / 10 / deals[role] for role in totals}


# -- interface ---------------------------------------------------------------------------
def test_registry_builds_seeded_strategies() -> None:
    assert set(HOUSE_BOTS) == {"random", "heuristic", "master"}
    for name, factory in HOUSE_BOTS.items():
        bot = factory(seed=7)
        assert isinstance(bot, BotStrategy) and isinstance(bot, HouseBot)
        assert bot.name == name and bot.seed == 7
    assert HOUSE_BOTS["heuristic"](seed=1, noise=0.25).noise == 0.25


def test_strategy_is_abstract_and_noise_is_checked() -> None:
    with pytest.raises(TypeError):
        BotStrategy()  # type: ignore[abstract]
    with pytest.raises(ValueError, match="noise"):
        HeuristicBot(noise=1.5)


# -- legality and determinism --------------------------------------------------------------
def mixed(i: int) -> list[BotStrategy]:
    bots: list[BotStrategy] = [
        HeuristicBot(i),
        HeuristicBot(i + 1, noise=0.3),
        RandomBot(i + 2),
        HeuristicBot(i + 3),
    ]
    return bots[i % 4 :] + bots[: i % 4]


@pytest.mark.parametrize("rules", RULESETS, ids=lambda r: r.name)
def test_every_move_is_legal(rules) -> None:
    for i in range(25):
        play_game(rules, derive_seed("legal", rules.name, i), mixed(i))
    for i in range(10):
        play_game(rules, derive_seed("legal-h", i), [HeuristicBot(i + k) for k in range(4)])


@pytest.mark.parametrize("rules", [PAGAT, BHOOS], ids=lambda r: r.name)
def test_same_seeds_same_game(rules) -> None:
    records = [game_record(play_game(rules, 11, mixed(3))) for _ in range(2)]
    assert records[0] == records[1]
    bots = mixed(3)
    first = game_record(play_game(rules, 11, bots))
    for bot in bots:
        bot.reset()
    assert game_record(play_game(rules, 11, bots)) == first


def test_seed_changes_random_choices() -> None:
    games = {
        str(game_record(play_game(PAGAT, 5, [RandomBot(seed + k) for k in range(4)])))
        for seed in range(4)
    }
    assert len(games) == 4


def test_reset_with_seed_equals_fresh_bot() -> None:
    obs = Game(PAGAT, 3).observation(1)  # seat 1 calls first
    fresh = [RandomBot(9), HeuristicBot(9, noise=0.5)]
    reused = [RandomBot(1), HeuristicBot(1, noise=0.5)]
    for bot in reused:
        bot.call(obs)
        bot.reset(9)
    assert [b.call(obs) for _ in range(20) for b in reused] == [
        b.call(obs) for _ in range(20) for b in fresh
    ]


# -- sensible play -------------------------------------------------------------------------
HANDS = [
    "2H 5H 6H 2S 3S 4S 5S 6S 7S 8S 9S TS JS",
    "QH JH TH QS KS AS 2D 3D 4D 5D 6D 7D 8D",
    "4H 7H 8H 9D TD JD QD KD AD 2C 3C 4C 5C",
    "AH KH 3H 9H 6C 7C 8C 9C TC JC QC KC AC",
]


def position(rules, calls: Sequence[int], plays: str) -> Deal:
    """A deal of ``HANDS`` (seat 0 leads) after ``calls`` and the cards ``plays``."""
    deal = Deal(rules, 0, dealer=3, hands=[mask_of(parse_cards(h)) for h in HANDS])
    for seat, n in enumerate(calls):
        deal.call(seat, n)
    for card in parse_cards(plays):
        deal.play(deal.to_act, card)
    return deal


def test_last_seat_wins_with_the_cheapest_winner() -> None:
    deal = position(PAGAT, [2, 2, 2, 3], "2H QH 4H")
    assert str(HeuristicBot().play(deal.observation(3))) == "KH"


def test_ducks_once_the_call_is_made() -> None:
    deal = position(KNOBS, [2, 2, 2, 1], "2H QH 4H KH")  # seat 3 has its one trick
    assert str(HeuristicBot().play(deal.observation(3))) == "3H"


def test_second_seat_plays_low_with_two_seats_to_come() -> None:
    for rules in (PAGAT, BHOOS):  # AH and KH are out: neither QH nor JH would likely hold
        deal = position(rules, [2, 2, 2, 3], "2H")
        assert str(HeuristicBot().play(deal.observation(1))) == "TH"


def test_leads_its_safest_master_when_it_needs_tricks() -> None:
    deal = position(PAGAT, [2, 2, 2, 3], "2H QH 4H KH")  # six hearts out, only four clubs
    assert str(HeuristicBot().play(deal.observation(3))) == "AH"


def test_scan_infers_voids() -> None:
    deal = position(PAGAT, [2, 2, 2, 3], "2H QH 4H KH 6C 2S")  # seat 0 ruffs clubs
    obs = deal.observation(1)
    played, voids = scan(obs)
    assert played == mask_of(parse_cards("2H QH 4H KH 6C 2S"))
    assert voids[0] == 1 << 3  # void in clubs only: it ruffed
    view = View(obs)
    assert view.beats(parse_card("3S")) and not view.beats(parse_card("2D"))
    assert view.later() == (2,)


def test_hand_evaluation_orders_hands_and_clamps_calls() -> None:
    strong = mask_of(parse_cards("AS KS QS JS TS 9S AH KH AD KD AC KC QC"))
    weak = mask_of(parse_cards("2S 3H 4H 5H 6H 2D 3D 4D 5D 2C 3C 4C 5C"))
    assert estimate_tricks(strong) > 10 > 2 > estimate_tricks(weak)
    assert choose_call(estimate_tricks(strong), "bhoos", tuple(range(1, 9))) == 8
    assert choose_call(estimate_tricks(weak), "pagat", tuple(range(2, 14))) == 2


# -- strength ------------------------------------------------------------------------------
@pytest.mark.parametrize("rules", [PAGAT, BHOOS], ids=lambda r: r.name)
def test_heuristic_beats_random(rules) -> None:
    def lineup(i: int) -> list[tuple[str, BotStrategy]]:
        seats: list[tuple[str, BotStrategy]] = [("random", RandomBot(4 * i + k)) for k in range(4)]
        seats[i % 4] = ("heuristic", HeuristicBot(i))  # every seat in turn
        return seats

    means = means_by_role(rules, 100, lineup, "vs-random")
    print(f"\n{rules.name}, 100 games, points/deal:", {k: round(v, 2) for k, v in means.items()})
    # Measured about +0.9 vs -6.7 (pagat) and +2.5 vs -2.6 (bhoos); the gap's noise is ~0.4.
    assert means["heuristic"] - means["random"] > 3.0


@pytest.mark.parametrize("rules", [PAGAT, BHOOS], ids=lambda r: r.name)
def test_noise_weakens_the_heuristic(rules) -> None:
    def lineup(i: int) -> list[tuple[str, BotStrategy]]:
        noises = (0.0, 0.5, 0.0, 0.5) if i % 2 else (0.5, 0.0, 0.5, 0.0)
        return [(f"noise {p}", HeuristicBot(4 * i + k, noise=p)) for k, p in enumerate(noises)]

    means = means_by_role(rules, 60, lineup, "noise")
    print(f"\n{rules.name}, 60 games, points/deal:", {k: round(v, 2) for k, v in means.items()})
    # Measured gaps of about 4 (pagat) and 3 (bhoos) points per deal.
    assert means["noise 0.0"] - means["noise 0.5"] > 1.0
