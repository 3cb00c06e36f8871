"""The specified deck shuffle: golden seed → hands for both presets, an independent reading
of its specification, no bias, and records of the old shuffle still validating."""

from __future__ import annotations

import hashlib
import random
from collections import Counter

import pytest

from arena.game import Game, Ruleset, game_record, validate_record
from arena.game.cards import cards_of, format_cards
from arena.game.deal import mt_deck, sha256_deck
from tests.game.helpers import PRESET_IDS, PRESETS, play_game

both = pytest.mark.parametrize("rules", PRESETS, ids=PRESET_IDS)

# Game seed 2026, first dealer 1: the hands of deal 0 and of deal 4, by seat.
GOLDEN = {
    "sha256": (
        [
            "3S 7S 9S JS AS 6H 7H TH JH KD 5C 7C 9C",
            "6S KS 8H 9H AH 5D 6D 7D JD AD 3C KC AC",
            "2S 8S QS 3H 4H QH KH 2D 4D 9D QD 8C JC",
            "4S 5S TS 2H 5H 3D 8D TD 2C 4C 6C TC QC",
        ],
        [
            "9S 3H 4H 9H JH 5D 6D 7D 8D 9D 2C JC QC",
            "4S 6S 8S 2H 8H 3D QD 3C 4C 5C 9C KC AC",
            "3S 7S TS JS QS KS AH 2D 4D JD KD AD TC",
            "2S 5S AS 5H 6H 7H TH QH KH TD 6C 7C 8C",
        ],
    ),
    "mt": (
        [
            "2S 4S KS 2H 4H QH KH 6D TD QD 2C 6C 7C",
            "3S 6S 8S 9S JS QS 5H 7H 9H AH AD 9C JC",
            "AS 3H 6H JH 2D 3D 5D JD KD 3C 5C 8C KC",
            "5S 7S TS 8H TH 4D 7D 8D 9D 4C TC QC AC",
        ],
        [
            "8S JS QS KS AS 3H 6H 8H 2D 3D AD 7C KC",
            "3S 4S 6S 7S TH 7D 9D TD QD KD 2C 4C 8C",
            "2S 2H 4H 5H QH AH 8D JD 3C 9C TC JC AC",
            "5S 9S TS 7H 9H JH KH 4D 5D 6D 5C 6C QC",
        ],
    ),
}


def hands(game: Game, index: int) -> list[str]:
    deal = game.finished[index]
    return [format_cards(cards_of(h)) for h in deal.dealt]


@both
@pytest.mark.parametrize("shuffle", ["sha256", "mt"])
def test_golden_hands(rules: Ruleset, shuffle: str) -> None:
    """Hands from a seed must never change: stored records and every worker depend on it."""
    rules = rules.with_(deals_per_game=5)
    game = play_game(Game(rules, 2026, first_dealer=1, shuffle=shuffle), random.Random(0))
    assert (hands(game, 0), hands(game, 4)) == GOLDEN[shuffle]


def test_golden_decks() -> None:
    assert sha256_deck(0)[:12] == [10, 21, 24, 35, 28, 5, 47, 2, 41, 45, 19, 37]
    assert sha256_deck(2**63 - 1)[-12:] == [14, 35, 49, 10, 37, 11, 2, 31, 5, 46, 33, 22]


def spec_deck(seed: int) -> list[int]:
    """The shuffle as the record format documents it, written out plainly."""
    stream = b"".join(
        hashlib.sha256(f"callbreak-shuffle-v2:{seed}:{k}".encode()).digest() for k in range(8)
    )
    bytes_ = iter(stream)
    deck = list(range(52))
    for i in range(51, 0, -1):
        n = i + 1
        byte = next(b for b in bytes_ if b < 256 - 256 % n)
        j = byte % n
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def test_the_implementation_follows_the_specification() -> None:
    for seed in [*range(300), 2**62 + 12345, 2**63 - 1]:
        assert sha256_deck(seed) == spec_deck(seed), seed


def test_every_position_is_equally_likely() -> None:
    """Chi-square of where card 0 and card 51 land over 10,400 shuffles (51 d.o.f.; the
    0.1% critical value is 87.97)."""
    draws = 10_400
    for card in (0, 51):
        counts = Counter(sha256_deck(seed).index(card) for seed in range(draws))
        expected = draws / 52
        chi2 = sum((counts[p] - expected) ** 2 / expected for p in range(52))
        assert chi2 < 87.97, (card, chi2)


def test_old_records_keep_validating_and_say_their_shuffle() -> None:
    rules = PRESETS[0].with_(deals_per_game=2)
    old = game_record(play_game(Game(rules, 5, shuffle="mt"), random.Random(5)))
    new = game_record(play_game(Game(rules, 5), random.Random(5)))
    assert (old["version"], new["version"]) == (1, 2)
    assert old["deals"][0]["hands"] != new["deals"][0]["hands"]
    assert validate_record(old) is None and validate_record(new) is None
    old["version"] = 2  # the same moves under the other shuffle: the hands disagree
    assert "hands: record says" in validate_record(old)
    assert mt_deck(5) != sha256_deck(5)
