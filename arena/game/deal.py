"""The state machine of one deal (round): deal, calling, play, scoring."""

from __future__ import annotations

import hashlib
import random
from typing import Final

from arena.game.cards import CARDS, FULL_DECK, SPADE_MASK, Card, cards_of
from arena.game.errors import IllegalAction
from arena.game.observation import Observation, Phase, Trick
from arena.game.rules import Ruleset
from arena.game.scoring import score_tenths
from arena.game.tricks import add_card, head_code, legal_mask, winning_card

CALLING: Final = "calling"
PLAYING: Final = "playing"
OVER: Final = "over"
FACE_MASK = sum(1 << (s * 13 + r) for s in range(4) for r in (9, 10, 11))  # J Q K
MAX_REDEALS = 1000


def derive_seed(*parts: object) -> int:
    """A 63-bit seed from any parts, stable across Python versions and processes."""
    text = "/".join(str(p) for p in parts).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "big") >> 1


def sha256_deck(seed: int) -> list[int]:
    """The deck (card codes 0-51) shuffled by shuffle ``sha256`` (record version 2).

    Fisher–Yates from the top: for i = 51 down to 1, swap card i with card j, where j is the
    next byte b of the key stream with b < 256 - 256 % (i + 1) (larger bytes are skipped, so
    every j is equally likely), taken as j = b % (i + 1). The key stream is the SHA-256
    digests of the ASCII text ``callbreak-shuffle-v2:<seed>:<k>`` for k = 0, 1, 2, ... (seed
    and k in decimal), concatenated. Specified to the byte, so every worker and every
    language deals the same hands; unpredictable without the seed.
    """
    deck = list(range(52))
    stream, used, block = b"", 0, 0
    for i in range(51, 0, -1):
        n = i + 1
        limit = 256 - 256 % n
        while True:
            if used == len(stream):
                stream += hashlib.sha256(f"{SHUFFLE_TAG}:{seed}:{block}".encode()).digest()
                block += 1
            byte = stream[used]
            used += 1
            if byte < limit:
                break
        j = byte % n
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def mt_deck(seed: int) -> list[int]:
    """The deck as shuffle ``mt`` (record version 1) dealt it: CPython's ``random.Random``,
    whose algorithm is not specified and may change. Kept to re-check old records."""
    deck = list(range(52))
    random.Random(seed).shuffle(deck)
    return deck


SHUFFLE_TAG = "callbreak-shuffle-v2"
SHUFFLES = {"sha256": sha256_deck, "mt": mt_deck}
DEFAULT_SHUFFLE = "sha256"


def deal_hands(seed: int, dealer: int, shuffle: str = DEFAULT_SHUFFLE) -> list[int]:
    """Shuffle with ``seed`` and deal one card at a time, starting at the dealer's right."""
    deck = SHUFFLES[shuffle](seed)
    hands = [0, 0, 0, 0]
    for i, card in enumerate(deck):
        hands[(dealer + 1 + i) % 4] |= 1 << card
    return hands


def needs_redeal(hands: list[int], rules: Ruleset) -> bool:
    no_spade = rules.redeal in ("no_spade", "no_spade_or_face")
    no_face = rules.redeal in ("no_face", "no_spade_or_face")
    return any((no_spade and not h & SPADE_MASK) or (no_face and not h & FACE_MASK) for h in hands)


def fresh_hands(
    seed: int, dealer: int, rules: Ruleset, shuffle: str = DEFAULT_SHUFFLE
) -> tuple[list[int], int]:
    """The hands for a deal and how many redeals the redeal rule forced."""
    for attempt in range(MAX_REDEALS):
        hands = deal_hands(derive_seed(seed, attempt) if attempt else seed, dealer, shuffle)
        if not needs_redeal(hands, rules):
            return hands, attempt
    raise RuntimeError("redeal rule rejected every deal")  # pragma: no cover


class Deal:
    """One deal. Seat ``s + 1`` (mod 4) sits to the right of ``s`` and acts after it."""

    def __init__(
        self,
        rules: Ruleset,
        seed: int,
        dealer: int = 0,
        index: int = 0,
        scores: tuple[int, ...] = (0, 0, 0, 0),
        hands: list[int] | None = None,
        shuffle: str = DEFAULT_SHUFFLE,
    ) -> None:
        if dealer not in range(4):
            raise ValueError(f"dealer must be a seat 0-3, not {dealer!r}")
        if shuffle not in SHUFFLES:
            raise ValueError(f"unknown shuffle {shuffle!r} (known: {', '.join(SHUFFLES)})")
        self.rules, self.seed, self.dealer, self.index = rules, seed, dealer, index
        self.scores_before = tuple(scores)
        self.redeals = 0
        if hands is None:
            hands, self.redeals = fresh_hands(seed, dealer, rules, shuffle)
        if sorted(h.bit_count() for h in hands) != [13] * 4 or _union(hands) != FULL_DECK:
            raise ValueError("hands must split the 52 cards 13 each")
        self.dealt = tuple(hands)
        self.hands = list(hands)
        self.phase: Phase = CALLING
        self.to_act: int | None = (dealer + 1) % 4
        self.calls: list[int | None] = [None] * 4
        self.tricks: list[Trick] = []
        self.leader = (dealer + 1) % 4
        self.trick: list[Card] = []
        self.summary = (-1, -1, -1)
        self.won = [0, 0, 0, 0]
        self._head = head_code(rules)
        self._legal: int | None = None  # legal mask of the seat to act, until it plays

    # -- moves -------------------------------------------------------------------------
    def legal_calls(self) -> range:
        return (
            range(self.rules.min_call, self.rules.max_call + 1)
            if self.phase == CALLING
            else range(0)
        )

    def legal_mask(self, seat: int) -> int:
        if self.phase != PLAYING or seat != self.to_act:
            return 0
        if self._legal is None:  # asked by the player, then again to check its card
            self._legal = legal_mask(
                self.hands[seat], *self.summary, self._head, self.rules.must_trump
            )
        return self._legal

    def legal_cards(self, seat: int | None = None) -> list[Card]:
        """The cards ``seat`` (by default the seat to act) may play now."""
        if seat is None:
            if self.to_act is None:  # the deal is over
                return []
            seat = self.to_act
        return cards_of(self.legal_mask(seat))

    def seat_to_act(self) -> int:
        """The seat to act now; IllegalAction once the deal is over (no seat is)."""
        if self.to_act is None:
            raise IllegalAction("the deal is over: no seat is to act")
        return self.to_act

    def call(self, seat: int, n: int) -> None:
        self._check_turn(seat, CALLING)
        if not isinstance(n, int) or isinstance(n, bool) or n not in self.legal_calls():
            raise IllegalAction(
                f"seat {seat} cannot call {n!r}: "
                f"calls range {self.rules.min_call}-{self.rules.max_call}"
            )
        self.calls[seat] = n
        if None in self.calls:
            self.to_act = (seat + 1) % 4
        else:
            self.phase, self.to_act = PLAYING, self.leader

    def play(self, seat: int, card: Card | int) -> int | None:
        """Play a card; returns the trick winner when the card completes a trick."""
        self._check_turn(seat, PLAYING)
        if isinstance(card, bool) or not isinstance(card, int) or not 0 <= card < 52:
            raise IllegalAction(f"seat {seat} cannot play {card!r}: not a card")
        if not self.legal_mask(seat) >> card & 1:
            why = "not legal here" if self.hands[seat] >> card & 1 else "not in its hand"
            legal = " ".join(map(str, self.legal_cards(seat)))
            raise IllegalAction(f"seat {seat} cannot play {CARDS[card]}: {why} (legal: {legal})")
        self.hands[seat] &= ~(1 << card)
        self._legal = None
        self.trick.append(CARDS[card])
        self.summary = add_card(card, *self.summary)
        if len(self.trick) < 4:
            self.to_act = (seat + 1) % 4
            return None
        return self._finish_trick()

    def _finish_trick(self) -> int:
        best = winning_card(*self.summary)
        winner = (self.leader + self.trick.index(CARDS[best])) % 4
        self.tricks.append(Trick(self.leader, tuple(self.trick), winner))
        self.won[winner] += 1
        self.trick, self.summary, self.leader = [], (-1, -1, -1), winner
        if len(self.tricks) == 13:
            self.phase, self.to_act = OVER, None
        else:
            self.to_act = winner
        return winner

    def _check_turn(self, seat: int, phase: Phase) -> None:
        if self.phase != phase:
            what = "call" if phase == CALLING else "play a card"
            raise IllegalAction(f"seat {seat} cannot {what}: the deal is in the {self.phase} phase")
        if seat != self.to_act:
            raise IllegalAction(f"seat {seat} acted out of turn: seat {self.to_act} is to act")

    # -- results -----------------------------------------------------------------------
    def points(self) -> list[int]:
        """Each seat's points for this deal in tenths (only when the deal is over)."""
        if self.phase != OVER:
            raise IllegalAction("the deal is not over yet")
        return [
            score_tenths(c or 0, w, self.rules) for c, w in zip(self.calls, self.won, strict=True)
        ]

    def observation(self, seat: int) -> Observation:
        acting = seat == self.to_act
        return Observation(
            rules=self.rules,
            seat=seat,
            dealer=self.dealer,
            deal=self.index,
            phase=self.phase,
            hand=tuple(cards_of(self.hands[seat])),
            calls=tuple(self.calls),
            tricks=tuple(self.tricks),
            current=Trick(self.leader, tuple(self.trick)),
            won=tuple(self.won),
            scores=self.scores_before,
            to_act=self.to_act,
            legal_cards=tuple(cards_of(self.legal_mask(seat))) if acting else (),
            legal_calls=tuple(self.legal_calls()) if acting else (),
        )


def _union(hands: list[int]) -> int:
    total = 0
    for h in hands:
        total |= h
    return total
