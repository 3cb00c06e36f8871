"""The pure Callbreak rules: no I/O, no clock, no randomness except the seeded deal.

The numba-compiled trick rules for search bots live in ``arena.house.compiled``: loading the
rules never pays for the compiler, and nothing here touches a file.
"""

from arena.game.cards import CARDS, Card, cards_of, format_cards, mask_of, parse_card, parse_cards
from arena.game.deal import CALLING, OVER, PLAYING, Deal, derive_seed
from arena.game.errors import IllegalAction
from arena.game.game import Game
from arena.game.observation import Observation, Phase, Trick
from arena.game.record import RecordError, check_game_record, game_record, validate_record
from arena.game.rules import BHOOS, PAGAT, RULESETS, Ruleset, get_ruleset
from arena.game.scoring import call_made, score_deal, score_tenths
from arena.game.tricks import legal_mask, legal_plays, trick_winner

__all__ = [
    "BHOOS",
    "CALLING",
    "CARDS",
    "OVER",
    "PAGAT",
    "PLAYING",
    "RULESETS",
    "Card",
    "Deal",
    "Game",
    "IllegalAction",
    "Observation",
    "Phase",
    "RecordError",
    "Ruleset",
    "Trick",
    "call_made",
    "cards_of",
    "check_game_record",
    "derive_seed",
    "format_cards",
    "game_record",
    "get_ruleset",
    "legal_mask",
    "legal_plays",
    "mask_of",
    "parse_card",
    "parse_cards",
    "score_deal",
    "score_tenths",
    "trick_winner",
    "validate_record",
]
