"""Game records: a finished game's record re-validates from its seed, survives JSON, and any
tampering is rejected with a message that says where."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from arena.game import (
    BHOOS,
    PAGAT,
    Game,
    RecordError,
    Ruleset,
    check_game_record,
    game_record,
    parse_card,
    score_tenths,
    validate_record,
)
from tests.game.helpers import PRESET_IDS, PRESETS, play_game

both = pytest.mark.parametrize("rules", PRESETS, ids=PRESET_IDS)


def record_of(rules: Ruleset, seed: int = 1, first_dealer: int = 0, **kw: Any) -> dict:
    game = play_game(Game(rules, seed=seed, first_dealer=first_dealer), random.Random(seed))
    return game_record(game, **kw)


@pytest.fixture(scope="module", params=PRESETS, ids=PRESET_IDS)
def record(request: pytest.FixtureRequest) -> dict:
    return record_of(request.param, seed=3, first_dealer=2)


def mutated(record: dict) -> dict:
    return copy.deepcopy(record)


def rejected(record: dict, *parts: str) -> str:
    message = validate_record(record)
    assert message is not None, "a tampered record was accepted"
    for part in parts:
        assert part in message, f"{part!r} not in {message!r}"
    with pytest.raises(RecordError):
        check_game_record(record)
    return message


# -- sound records --------------------------------------------------------------------------


@both
def test_a_record_holds_rules_seed_hands_calls_tricks_and_points(rules: Ruleset) -> None:
    game = play_game(Game(rules, seed=7, first_dealer=1), random.Random(7))
    rec = game_record(game, players=["a", "b", "c", "d"])
    assert rec["format"] == "callbreak-game" and rec["version"] == 2
    assert rec["rules"] == rules.to_dict() and rec["seed"] == 7 and rec["first_dealer"] == 1
    assert rec["players"] == ["a", "b", "c", "d"]
    assert len(rec["deals"]) == rules.deals_per_game
    for i, (d, deal) in enumerate(zip(rec["deals"], game.finished, strict=True)):
        assert d["index"] == i and d["dealer"] == (1 + i) % 4
        assert d["seed"] == deal.seed and d["redeals"] == deal.redeals
        assert [len(h.split()) for h in d["hands"]] == [13] * 4
        assert d["calls"] == deal.calls
        assert len(d["tricks"]) == 13
        assert all(len(t["cards"]) == 4 for t in d["tricks"])
        assert d["won"] == deal.won and sum(d["won"]) == 13
        points = [score_tenths(c, w, rules) / 10 for c, w in zip(d["calls"], d["won"], strict=True)]
        assert d["points"] == points
    assert validate_record(rec) is None


def test_the_record_survives_json(record: dict) -> None:
    again = json.loads(json.dumps(record))
    assert again == record
    assert validate_record(again) is None


def test_bhoos_points_are_exact_tenths_in_the_record() -> None:
    rec = record_of(BHOOS, seed=5)
    points = [p for d in rec["deals"] for p in d["points"]]
    assert any(isinstance(p, float) for p in points)
    assert all(round(p * 10) == p * 10 or isinstance(p, int) for p in points)
    assert validate_record(rec) is None


def test_unknown_keys_are_ignored_so_records_can_grow(record: dict) -> None:
    rec = mutated(record)
    rec["decisions"] = [{"seat": 0, "ms": 12}]
    rec["faults"] = []
    rec["deals"][0]["decisions"] = [1, 2, 3]
    rec["deals"][0]["tricks"][0]["ms"] = [1, 1, 1, 1]
    assert validate_record(rec) is None


def test_a_match_record_validates_each_game_and_names_the_bad_one() -> None:
    games = [record_of(PAGAT, seed=s) for s in (1, 2)]
    assert validate_record({"games": games}) is None
    games[1] = mutated(games[1])
    games[1]["deals"][3]["tricks"][5]["winner"] = (
        games[1]["deals"][3]["tricks"][5]["winner"] + 1
    ) % 4
    message = validate_record({"games": games})
    assert message is not None and message.startswith("game 2: deal 4: trick 6 winner")


# -- tampering ------------------------------------------------------------------------------


def _other_seat_pair(deal: dict) -> tuple[int, int, int]:
    """A trick t and positions i (in t) and j (in t+1) played by different seats."""
    tricks = deal["tricks"]
    for t in range(12):
        for i in range(4):
            for j in range(4):
                if (tricks[t]["leader"] + i) % 4 != (tricks[t + 1]["leader"] + j) % 4:
                    return t, i, j
    raise AssertionError("unreachable")  # pragma: no cover


def test_a_card_swapped_between_two_tricks_is_rejected(record: dict) -> None:
    rec = mutated(record)
    deal = rec["deals"][2]
    t, i, j = _other_seat_pair(deal)
    a, b = deal["tricks"][t]["cards"][i], deal["tricks"][t + 1]["cards"][j]
    deal["tricks"][t]["cards"][i], deal["tricks"][t + 1]["cards"][j] = b, a
    rejected(rec, f"deal 3: trick {t + 1}, card {i + 1}:", f"cannot play {b}: not in its hand")


def test_a_wrong_trick_winner_is_rejected(record: dict) -> None:
    rec = mutated(record)
    trick = rec["deals"][1]["tricks"][7]
    right = trick["winner"]
    trick["winner"] = (right + 2) % 4
    rejected(rec, "deal 2: trick 8 winner:", f"record says {(right + 2) % 4}", f"give {right}")


def test_a_wrong_trick_leader_is_rejected(record: dict) -> None:
    rec = mutated(record)
    trick = rec["deals"][0]["tricks"][4]
    trick["leader"] = (trick["leader"] + 1) % 4
    rejected(rec, "deal 1: trick 5 leader:")


def test_a_changed_call_that_changes_the_points_is_rejected(record: dict) -> None:
    rules = Ruleset.from_dict(record["rules"])
    rec = mutated(record)
    deal = rec["deals"][3]
    seat = 2
    call, won = deal["calls"][seat], deal["won"][seat]
    new = next(
        n
        for n in range(rules.min_call, rules.max_call + 1)
        if score_tenths(n, won, rules) != score_tenths(call, won, rules)
    )
    deal["calls"][seat] = new
    rejected(rec, "deal 4: points:")


def test_an_out_of_range_call_is_rejected(record: dict) -> None:
    rules = Ruleset.from_dict(record["rules"])
    rec = mutated(record)
    rec["deals"][0]["calls"][1] = rules.max_call + 1
    rejected(rec, "deal 1: seat 1 cannot call", f"calls range {rules.min_call}-{rules.max_call}")


def test_a_changed_game_seed_is_rejected(record: dict) -> None:
    rec = mutated(record)
    rec["seed"] += 1
    rejected(rec, "deal 1: seed:")


def test_a_changed_deal_seed_is_rejected(record: dict) -> None:
    rec = mutated(record)
    rec["deals"][2]["seed"] += 1
    rejected(rec, "deal 3: seed:")


def test_a_changed_hand_is_rejected(record: dict) -> None:
    rec = mutated(record)
    hands = rec["deals"][4]["hands"]
    a, b = hands[0].split(), hands[3].split()
    a[0], b[0] = b[0], a[0]
    hands[0], hands[3] = " ".join(a), " ".join(b)
    rejected(rec, "deal 5: hands:")


def test_a_changed_first_dealer_is_rejected(record: dict) -> None:
    rec = mutated(record)
    rec["first_dealer"] = (rec["first_dealer"] + 1) % 4
    rejected(rec, "deal 1:")


def test_changed_won_points_or_scores_are_rejected(record: dict) -> None:
    rec = mutated(record)
    rec["deals"][1]["won"][0] += 1
    rejected(rec, "deal 2: tricks won:")
    rec = mutated(record)
    rec["deals"][1]["points"][3] = 99
    rejected(rec, "deal 2: points:", "record says [")
    rec = mutated(record)
    rec["scores"][0] += 1
    rejected(rec, "final scores:")


def test_changed_rules_are_rejected(record: dict) -> None:
    rec = mutated(record)
    other = BHOOS if rec["rules"]["name"] == "pagat" else PAGAT
    rec["rules"] = other.to_dict()
    rejected(rec, "deal ")
    rec = mutated(record)
    rec["rules"]["deals_per_game"] = 4
    rejected(rec, "5 deals recorded, the rules play 4")
    rec = mutated(record)
    rec["rules"]["must_head"] = "sometimes"
    rejected(rec, "bad record header", "must_head")


def test_missing_or_extra_tricks_are_rejected(record: dict) -> None:
    rec = mutated(record)
    del rec["deals"][2]["tricks"][-1]
    rejected(rec, "deal 3: only 12 tricks recorded")
    rec = mutated(record)
    rec["deals"][2]["tricks"].append(copy.deepcopy(rec["deals"][2]["tricks"][-1]))
    rejected(rec, "deal 3: 14 tricks recorded, a deal has 13")
    rec = mutated(record)
    rec["deals"][4]["tricks"].append(copy.deepcopy(rec["deals"][4]["tricks"][-1]))
    rejected(rec, "deal 5: 14 tricks recorded, a deal has 13")


def test_two_tricks_merged_into_one_are_rejected(record: dict) -> None:
    """Found by this suite: an 8-card "trick" (two real tricks merged, the second winner
    kept) used to replay cleanly, since cards are played in order whatever the grouping."""
    rec = mutated(record)
    tricks = rec["deals"][0]["tricks"]
    tricks[0]["cards"] += tricks[1]["cards"]
    tricks[0]["winner"] = tricks[1]["winner"]
    del tricks[1]
    rejected(rec, "deal 1: trick 1: a trick is a list of 4 cards")


def test_extra_calls_are_rejected(record: dict) -> None:
    rec = mutated(record)
    rec["deals"][0]["calls"].append(3)
    rejected(rec, "deal 1: calls:")


def test_a_card_that_does_not_exist_is_rejected(record: dict) -> None:
    rec = mutated(record)
    rec["deals"][0]["tricks"][0]["cards"][0] = "1S"
    rejected(rec, "deal 1:", "'1S'")


def test_an_illegal_but_held_card_is_rejected() -> None:
    """Where a seat followed suit, put in a held card of a third suit (not spades) instead:
    the seat still holds it, but it is not legal there."""
    rec = record_of(PAGAT, seed=11)
    for d, deal in enumerate(rec["deals"]):
        hands = [set(h.split()) for h in deal["hands"]]
        for t, trick in enumerate(deal["tricks"]):
            led = trick["cards"][0][1]
            for k in range(1, 4):
                seat = (trick["leader"] + k) % 4
                played = trick["cards"][k]
                off = [c for c in hands[seat] if c[1] != led and c[1] != "S"]
                if played[1] == led and off:
                    bad = mutated(rec)
                    bad["deals"][d]["tricks"][t]["cards"][k] = off[0]
                    rejected(bad, f"deal {d + 1}: trick {t + 1}, card {k + 1}:", "not legal here")
                    return
            for k, card in enumerate(trick["cards"]):
                hands[(trick["leader"] + k) % 4].discard(card)
    raise AssertionError("no follow-suit spot found")  # pragma: no cover


@pytest.mark.parametrize(
    "bad",
    [
        None,
        [],
        "record",
        {},
        {"format": "callbreak-game", "version": 2},
        {"games": 5},
        {"games": [None]},
    ],
    ids=repr,
)
def test_malformed_records_get_a_message_not_a_crash(bad: Any) -> None:
    """Found by this suite: non-dict records and non-list ``deals``/``games`` crashed
    ``validate_record`` with AttributeError/TypeError instead of returning the problem."""
    message = validate_record(bad)
    assert isinstance(message, str) and message


def test_malformed_parts_of_a_record_get_a_message(record: dict) -> None:
    for path, value, expect in [
        (("deals",), 5, "deals must be a list"),
        (("deals", 0), "deal", "deal 1:"),
        (("deals", 0, "tricks", 0), None, "deal 1:"),
        (("deals", 0, "tricks", 0, "cards"), "AS KS QS JS", "a trick is a list of 4 cards"),
        (("deals", 0, "calls"), [2, 2], "deal 1:"),
        (("rules",), None, "bad record header"),
    ]:
        rec = mutated(record)
        target = rec
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
        rejected(rec, expect)
    rec = mutated(record)
    del rec["deals"][1]["won"]
    rejected(rec, "deal 2:", "won")


def test_a_card_is_parsed_from_its_record_text() -> None:
    rec = record_of(PAGAT, seed=2)
    first = rec["deals"][0]["tricks"][0]["cards"][0]
    assert str(parse_card(first)) == first
