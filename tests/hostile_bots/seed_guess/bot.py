"""A raw callbreak.v1 servicer that tries to know every hand.

It runs on the platform's own interpreter, so it imports the platform's dealing code
(``arena.game``) and recomputes deals from every number it can find: the digits and hex
of Hello.match_id, small seeds 0..1000 (seed 1 included), the wall clock of the last hour
in seconds, the table seeds that tournaments 0..32 used to derive from their public seed,
and, at each decision, the decision id and the game index. Each candidate is tried as a
game seed (``Game`` derives deal ``i`` from ``derive_seed(seed, i)``) and as a deal seed.
When a candidate deals exactly its own 13 cards it predicts the three hidden hands, and at
its last card of the deal it checks every prediction against the cards the other seats
really played (all but at most one card of each). Everything goes to stderr (the bot's
log; the cumulative line after every deal):

    HELLO match_id=<id>
    CANDIDATES <n> seeds, <m> hands tabled in <s>s
    game <g> deal <d>: PREDICTED <k>/3 hidden hands (<how>)
    PREDICTED <n>/<m> hidden hands in game <g>
"""

import hashlib
import re
import sys
import time

from arena.game import derive_seed, parse_card
from arena.game.deal import fresh_hands
from arena.players.wire import rules_from_proto
from arena.proto import bot_pb2 as pb
from arena.proto import bot_pb2_grpc as pb_grpc
from arena.sdk.server import serve_servicer

SMALL_SEEDS = range(0, 1001)  # seed 1 (the old validation seed) among them
CLOCK_WINDOW_S = 3600  # the wall clock of the last hour, in seconds
MASK63 = (1 << 63) - 1
OLD_TOURNAMENT_SEEDS = range(0, 33)  # public tournament seeds, as printed by `tournament create`
OLD_TABLES = range(0, 16)


def say(text):
    print(text, file=sys.stderr, flush=True)


def mask(cards):
    out = 0
    for text in cards:
        out |= 1 << parse_card(text)
    return out


def old_table_seed(tournament_seed, index):
    """How tournaments used to seed a table's deals: from the public tournament seed."""
    data = f"callbreak-arena/table/{tournament_seed}/{index}".encode()
    return int.from_bytes(hashlib.sha256(data).digest()[:8], "big") >> 1


def numbers_in(text):
    """Every integer the text could be hiding: digit runs, hex runs, and their 63-bit cuts."""
    found = set()
    for run in re.findall(r"\d+", text):
        found.add(int(run))
    for run in re.findall(r"[0-9a-fA-F]{4,}", text):
        value = int(run, 16)
        found.update({value, value >> 1, value & MASK63})
        for width in (8, 12, 16):  # prefixes, like play-<token_hex(4)>
            found.add(int(run[:width], 16))
    return found


class Guesser:
    """A table from every hand the candidate seeds deal to the four hands of that deal."""

    def __init__(self, rules, match_id):
        self.rules = rules
        self.table = {}  # hand mask -> (how, hands dealt with dealer 0, deal index or None)
        self.tried = set()
        t0 = time.perf_counter()
        now = int(time.time())
        candidates = [(s, f"small seed {s}") for s in SMALL_SEEDS]
        candidates += [(n, f"number {n} in the match id") for n in numbers_in(match_id)]
        candidates += [(t, f"clock {t}") for t in range(now - CLOCK_WINDOW_S, now + 60)]
        candidates.append((derive_seed(match_id), "hash of the match id"))
        candidates += [
            (old_table_seed(t, i), f"old tournament {t} table {i}")
            for t in OLD_TOURNAMENT_SEEDS
            for i in OLD_TABLES
        ]
        for seed, label in candidates:
            self.add(seed, label)
        self.add_text_seed(match_id, "the match id text")
        say(
            f"CANDIDATES {len(self.tried)} seeds, {len(self.table)} hands tabled"
            f" in {time.perf_counter() - t0:.2f}s"
        )

    def _table(self, seed, how, index):
        hands, _ = fresh_hands(seed, 0, self.rules)
        for hand in hands:
            self.table.setdefault(hand, (how, hands, index))

    def add(self, seed, label):
        if seed in self.tried:
            return
        self.tried.add(seed)
        self._table(seed, f"{label} as the deal seed", None)
        for index in range(self.rules.deals_per_game):
            self._table(derive_seed(seed, index), f"{label} as the game seed", index)

    def add_text_seed(self, text, label):
        for index in range(self.rules.deals_per_game):
            self._table(derive_seed(text, index), f"{label} as the game seed", index)

    def predict(self, hand, seat, deal_index):
        """Predicted hands by seat, and how; or None."""
        found = self.table.get(hand)
        if found is None:
            return None
        how, hands, index = found
        if index is not None and index != deal_index:
            return None
        j = hands.index(hand)
        return {t: hands[(j + t - seat) % 4] for t in range(4) if t != seat}, how


def played_by_seat(obs):
    """The cards each seat has played in this deal so far, from the observation."""
    played = [0, 0, 0, 0]
    for trick in [*obs.tricks, obs.current]:
        for i, card in enumerate(trick.cards):
            played[(trick.leader + i) % 4] |= 1 << parse_card(card)
    return played


def check(prediction, obs):
    """At the bot's last card of a deal (the others have 0 or 1 card left): how many of the
    predicted hands hold every card that seat played, and nothing the bot has seen
    elsewhere."""
    if prediction is None:
        return 0
    played = played_by_seat(obs)
    seen = mask(obs.hand) | played[0] | played[1] | played[2] | played[3]
    right = 0
    for seat, hand in prediction.items():
        left = hand & ~played[seat]
        if played[seat] & ~hand == 0 and left & seen == 0 and left.bit_count() <= 1:
            right += 1
    return right


class SeedGuess(pb_grpc.BotServicer):
    def __init__(self, done):
        self.done = done

    def Play(self, request_iterator, context):
        guesser = None
        deal_key = None
        prediction = how = None
        confirmed = total = 0
        try:
            for msg in request_iterator:
                kind = msg.WhichOneof("kind")
                if kind == "hello":
                    say(f"HELLO match_id={msg.hello.match_id}")
                    guesser = Guesser(rules_from_proto(msg.hello.rules), msg.hello.match_id)
                    hello = pb.HelloReply(protocol="callbreak.v1", name="seed-guess", version="1")
                    yield pb.BotMessage(hello=hello)
                elif kind == "decision":
                    req = msg.decision
                    obs = req.observation
                    if (obs.game, obs.deal) != deal_key:  # first decision of a deal: 13 cards
                        deal_key = (obs.game, obs.deal)
                        for extra in (req.id, obs.game, obs.deal, req.id - 1):
                            guesser.add(extra, f"number {extra} of the decision")
                        found = guesser.predict(mask(obs.hand), obs.seat, obs.deal)
                        prediction, how = found or (None, "no candidate deals my hand")
                    if len(obs.hand) == 1:  # its last card: nearly every card is known
                        right = check(prediction, obs)
                        confirmed, total = confirmed + right, total + 3
                        g, d = obs.game, obs.deal
                        say(f"game {g} deal {d}: PREDICTED {right}/3 hidden hands ({how})")
                        say(f"PREDICTED {confirmed}/{total} hidden hands in game {g}")
                    reply = pb.DecisionReply(id=req.id)
                    if req.kind == pb.CALL:
                        reply.call = req.min_call
                    else:
                        reply.card = req.legal_cards[0]
                    yield pb.BotMessage(decision=reply)
        finally:
            self.done.set()


def main():
    serve_servicer(SeedGuess)


if __name__ == "__main__":
    main()
