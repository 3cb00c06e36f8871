"""The game record (replay): versioned JSON, re-validated move by move from its seed.

A record holds the ruleset, the seed, and per deal the dealt hands, every call and card in
order, trick winners and points. The referee adds per-decision timings and faults under
``decisions`` and ``faults``; validation ignores keys it does not know, so records can grow.

The version says how the deck was shuffled, so records of every version keep validating:
version 1 used CPython's ``random.Random(seed).shuffle`` (not a specified algorithm);
version 2 uses the ``sha256`` shuffle, specified in ``arena.game.deal.sha256_deck``
(SHA-256 key stream in counter mode, unbiased Fisher–Yates by rejection). Each deal's seed
is ``derive_seed(game seed, deal index)``, a redeal's ``derive_seed(deal seed, attempt)``.
"""

from __future__ import annotations

from typing import Any

from arena.game.cards import cards_of, format_cards, parse_cards
from arena.game.deal import DEFAULT_SHUFFLE, Deal
from arena.game.errors import IllegalAction
from arena.game.game import Game
from arena.game.rules import Ruleset

FORMAT = "callbreak-game"
SHUFFLE_OF_VERSION = {1: "mt", 2: "sha256"}
VERSION_OF_SHUFFLE = {shuffle: version for version, shuffle in SHUFFLE_OF_VERSION.items()}
VERSION = VERSION_OF_SHUFFLE[DEFAULT_SHUFFLE]


def points_json(tenths: int) -> float | int:
    return tenths // 10 if tenths % 10 == 0 else tenths / 10


def deal_record(deal: Deal) -> dict[str, Any]:
    return {
        "index": deal.index,
        "seed": deal.seed,
        "redeals": deal.redeals,
        "dealer": deal.dealer,
        "hands": [format_cards(cards_of(h)) for h in deal.dealt],
        "calls": list(deal.calls),
        "tricks": [
            {"leader": t.leader, "cards": [str(c) for c in t.cards], "winner": t.winner}
            for t in deal.tricks
        ],
        "won": list(deal.won),
        "points": [points_json(p) for p in deal.points()],
    }


def game_record(game: Game, players: list[str] | None = None) -> dict[str, Any]:
    """The record of a finished game; ``players`` names the bot in each seat."""
    return {
        "format": FORMAT,
        "version": VERSION_OF_SHUFFLE[game.shuffle],
        "rules": game.rules.to_dict(),
        "seed": game.seed,
        "first_dealer": game.first_dealer,
        "players": players,
        "deals": [deal_record(d) for d in game.finished],
        "scores": [points_json(s) for s in game.scores],
    }


class RecordError(ValueError):
    """The first place where a record disagrees with the rules replayed from its seed."""


def check_game_record(record: dict[str, Any]) -> Game:
    """Replay ``record`` with the engine; raise ``RecordError`` at the first inconsistency.
    The replayed game (its ``finished`` deals) is returned, e.g. to be shown."""
    if (
        not isinstance(record, dict)
        or record.get("format") != FORMAT
        or record.get("version") not in SHUFFLE_OF_VERSION
    ):
        versions = "/".join(f"v{v}" for v in SHUFFLE_OF_VERSION)
        raise RecordError(f"not a {FORMAT} {versions} record")
    shuffle = SHUFFLE_OF_VERSION[record["version"]]
    try:
        rules = Ruleset.from_dict(record["rules"])
        game = Game(rules, record["seed"], record["first_dealer"], shuffle)
        deals = record["deals"]
    except (KeyError, TypeError, ValueError) as exc:
        raise RecordError(f"bad record header: {exc}") from None
    if not isinstance(deals, list):
        raise RecordError(f"deals must be a list, not {type(deals).__name__}")
    if len(deals) != game.rules.deals_per_game:
        raise RecordError(
            f"{len(deals)} deals recorded, the rules play {game.rules.deals_per_game}"
        )
    for i, deal in enumerate(deals):
        try:
            _replay_deal(game, deal)
        except (IllegalAction, KeyError, TypeError, ValueError, IndexError) as exc:
            raise RecordError(f"deal {i + 1}: {exc}") from None
    _expect("final scores", record.get("scores"), [points_json(s) for s in game.scores])
    return game


def _replay_deal(game: Game, rec: dict[str, Any]) -> None:
    deal = game.deal
    for key in ("index", "seed", "dealer", "redeals"):
        _expect(key, rec[key], getattr(deal, key))
    _expect("hands", rec["hands"], [format_cards(cards_of(h)) for h in deal.dealt])
    for k in range(4):
        seat = (deal.dealer + 1 + k) % 4
        game.call(seat, rec["calls"][seat])
    _expect("calls", rec["calls"], deal.calls)
    for t, trick in enumerate(rec["tricks"]):
        if deal.phase == "over":
            raise RecordError(f"{len(rec['tricks'])} tricks recorded, a deal has 13")
        _expect(f"trick {t + 1} leader", trick["leader"], deal.leader)
        cards = trick["cards"]
        if not isinstance(cards, list) or len(cards) != 4:
            raise RecordError(f"trick {t + 1}: a trick is a list of 4 cards, not {cards!r}")
        winner = None
        for k, card in enumerate(parse_cards(cards)):
            try:
                winner = game.play(deal.seat_to_act(), card)
            except IllegalAction as exc:
                raise IllegalAction(f"trick {t + 1}, card {k + 1}: {exc}") from None
        _expect(f"trick {t + 1} winner", trick["winner"], winner)
    if deal.phase != "over":
        raise RecordError(f"only {len(rec['tricks'])} tricks recorded")
    _expect("tricks won", rec["won"], deal.won)
    _expect("points", rec["points"], [points_json(p) for p in deal.points()])


def _expect(what: str, recorded: Any, actual: Any) -> None:
    if recorded != actual:
        raise RecordError(f"{what}: record says {recorded!r}, the rules give {actual!r}")


def validate_record(record: dict[str, Any]) -> str | None:
    """The first inconsistency in a game record, or in any game of a match record; None if sound."""
    games = record.get("games") if isinstance(record, dict) else None
    try:
        if games is None:
            check_game_record(record)
        elif not isinstance(games, list):
            raise RecordError(f"games must be a list, not {type(games).__name__}")
        for g, game in enumerate(games or []):
            try:
                check_game_record(game)
            except RecordError as exc:
                raise RecordError(f"game {g + 1}: {exc}") from None
    except RecordError as exc:
        return str(exc)
    return None
