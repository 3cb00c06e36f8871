"""The referee: duplicate rotation, clock, failure policy and the record, with in-process bots."""

from __future__ import annotations

import random
import re
import time

import pytest

from arena.game import BHOOS, PAGAT, Deal, validate_record
from arena.players.inprocess import InProcessPlayer
from arena.players.player import BotDied, BotTimeout, MatchInfo, Request
from arena.referee import Clock, MatchSpec, play_match


class Randomish:
    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def call(self, obs):
        return self.rng.choice(obs.legal_calls)

    def play(self, obs):
        return self.rng.choice(obs.legal_cards)


class Scripted(Randomish):
    """Misbehaves on chosen decisions (counted from 1) with ``how``."""

    def __init__(self, how, on: set[int]) -> None:
        super().__init__(1)
        self.how, self.on, self.count = how, on, 0

    def _maybe(self, obs, normal):
        self.count += 1
        return self.how(obs) if self.count in self.on else normal(obs)

    def call(self, obs):
        return self._maybe(obs, super().call)

    def play(self, obs):
        return self._maybe(obs, super().play)


class Dying(InProcessPlayer):
    def __init__(self, after: int) -> None:
        super().__init__(Randomish(9), "dying")
        self.left = after

    def decide(self, request: Request, timeout_s: float):
        self.left -= 1
        if self.left < 0:
            raise BotDied("process exited with status 1")
        return super().decide(request, timeout_s)


class FailsToStart(InProcessPlayer):
    def start(self, info: MatchInfo, timeout_s: float) -> None:
        raise BotDied("exited during start-up")


def spec(**kw) -> MatchSpec:
    kw.setdefault("rules", PAGAT.with_(deals_per_game=2))
    return MatchSpec("test", **kw)


def players(*extra):
    base = [InProcessPlayer(Randomish(i), f"r{i}") for i in range(4)]
    return list(extra) + base[len(extra) :]


def test_duplicate_set_rotates_bots_over_the_same_deals():
    result = play_match(spec(seed=11), players())
    games = result.record["games"]
    assert [g["seats"] for g in games] == [[0, 1, 2, 3], [3, 0, 1, 2], [2, 3, 0, 1], [1, 2, 3, 0]]
    assert len({tuple(g["deals"][0]["hands"]) for g in games}) == 1
    hands = [g["deals"][0]["hands"][g["seats"].index(0)] for g in games]
    assert len(set(hands)) == 4  # entrant 0 held every seat's hand once


def test_totals_add_up_and_the_record_revalidates():
    result = play_match(spec(seed=3, rules=BHOOS.with_(deals_per_game=3)), players())
    assert validate_record(result.record) is None
    for game, rec in zip(result.games, result.record["games"], strict=True):
        by_seat = [round(s * 10) for s in rec["scores"]]
        assert [by_seat[game.seats.index(e)] for e in range(4)] == list(game.points)
    assert result.totals == [sum(g.points[e] for g in result.games) for e in range(4)]
    assert result.faults == []


@pytest.mark.parametrize(
    ("how", "kind"),
    [
        (lambda obs: 99 if obs.phase == "calling" else obs.legal_cards[0], "illegal_call"),
        (lambda obs: "XX" if obs.phase == "playing" else obs.legal_calls[0], "malformed"),
        (lambda obs: 1.5 if obs.phase == "calling" else obs.legal_cards[0], "malformed"),
    ],
)
def test_a_bad_answer_is_a_strike_and_a_fallback(how, kind):
    bad = InProcessPlayer(Scripted(how, on=set(range(1, 40))), "bad")
    result = play_match(spec(seed=5, max_strikes=100), players(bad))
    faults = [f for f in result.faults if f.entrant == 0]
    assert faults and all(f.kind == kind for f in faults)
    assert not result.forfeited[0]
    assert validate_record(result.record) is None


def test_an_illegal_card_gets_the_lowest_legal_card_instead():
    def illegal(obs):
        if obs.phase == "calling":
            return obs.legal_calls[0]
        others = [c for c in obs.hand if c not in obs.legal_cards]
        return others[0] if others else "AS" if "AS" not in map(str, obs.hand) else "2C"

    bad = InProcessPlayer(Scripted(illegal, on=set(range(1, 500))), "bad")
    result = play_match(spec(seed=8, max_strikes=10_000), players(bad))
    strikes = [f for f in result.faults if f.kind == "illegal_card"]
    assert strikes, "an illegal card must be struck"
    game = result.record["games"][0]
    for deal in game["deals"]:
        for entry, card in _seat_cards(deal, seat=0):
            if entry.get("fault") == "illegal_card":
                assert card == _lowest_legal_at(deal, entry)


def _seat_cards(deal, seat):
    plays = [e for e in deal["decisions"] if e["seat"] == seat][1:]  # first is the call
    cards = [
        c for t in deal["tricks"] for i, c in enumerate(t["cards"]) if (t["leader"] + i) % 4 == seat
    ]
    return zip(plays, cards, strict=True)


def _lowest_legal_at(deal_rec, entry):
    """Replay the deal up to the decision and return the fallback the referee should play."""
    from arena.game import parse_card
    from arena.referee.moves import fallback

    deal = Deal(
        PAGAT.with_(deals_per_game=2), deal_rec["seed"], deal_rec["dealer"], deal_rec["index"]
    )
    for s in [(deal.dealer + 1 + k) % 4 for k in range(4)]:
        deal.call(s, deal_rec["calls"][s])
    ids = [e["id"] for e in deal_rec["decisions"]][4:]
    cards = [c for t in deal_rec["tricks"] for c in t["cards"]]
    for decision_id, card in zip(ids, cards, strict=True):
        if decision_id == entry["id"]:
            return str(fallback("play", deal.observation(deal.to_act)))
        deal.play(deal.to_act, parse_card(card))
    raise AssertionError("decision not found")


def test_k_strikes_forfeit_the_seat_and_the_match_completes():
    bad = InProcessPlayer(Scripted(lambda obs: "garbage", on=set(range(1, 10_000))), "bad")
    result = play_match(spec(seed=2, max_strikes=3), players(bad))
    kinds = [f.kind for f in result.faults if f.entrant == 0]
    assert kinds == ["malformed"] * 3 + ["forfeit"]
    assert result.forfeited == [True, False, False, False]
    assert len(result.games) == 4 and validate_record(result.record) is None
    autos = [
        e
        for g in result.record["games"]
        for d in g["deals"]
        for e in d["decisions"]
        if e.get("auto")
    ]
    assert autos and all(
        e["seat"] == g["seats"].index(0)
        for g in result.record["games"]
        for d in g["deals"]
        for e in d["decisions"]
        if e.get("auto")
    )


def test_a_dying_bot_is_forfeited_at_once():
    result = play_match(spec(seed=4), players(Dying(after=10)))
    kinds = [f.kind for f in result.faults]
    assert kinds == ["crash", "forfeit"]
    assert "status 1" in result.faults[1].reason
    assert result.forfeited[0] and len(result.games) == 4


def test_a_bot_that_cannot_start_is_forfeited_and_never_asked():
    result = play_match(spec(seed=4), players(FailsToStart(Randomish(), "nostart")))
    assert [f.kind for f in result.faults] == ["start_failed", "forfeit"]
    decisions = [e for g in result.record["games"] for d in g["deals"] for e in d["decisions"]]
    assert not any(
        "id" in e and e["seat"] == g["seats"].index(0)
        for g in result.record["games"]
        for d in g["deals"]
        for e in d["decisions"]
    )
    assert decisions


class Slow(Randomish):
    def __init__(self, delay: float) -> None:
        super().__init__()
        self.delay = delay

    def call(self, obs):
        time.sleep(self.delay)
        return super().call(obs)


class Silent(InProcessPlayer):
    """Lets its 2nd and 3rd decisions time out, as a stream player reports it."""

    asked = 0

    def decide(self, request: Request, timeout_s: float):
        self.asked += 1
        if self.asked in (2, 3):
            raise BotTimeout(f"no answer to decision {request.id} in time")
        return super().decide(request, timeout_s)


def test_a_timeout_says_how_long_it_was_waited_for_against_its_allowance():
    clock = Clock(decision_ms=300, bank_ms=1000)
    result = play_match(spec(seed=2, clock=clock, games=1), players(Silent(Randomish(), "silent")))
    timeouts = [f for f in result.faults if f.kind == "timeout"]
    took = {e["id"]: e["ms"] for d in result.record["games"][0]["deals"] for e in d["decisions"]}
    assert len(timeouts) == 2
    for fault in timeouts:
        found = re.fullmatch(
            rf"no answer to decision {fault.decision} in time \(waited (\d+) ms, the "
            r"allowance is (\d+) ms: 300 ms a decision \+ (\d+) ms of bank\)",
            fault.reason,
        )
        assert found, fault.reason
        waited, allowance, bank = map(int, found.groups())
        assert abs(waited - took[fault.decision]) <= 1  # the time the record holds
        assert allowance == 300 + bank <= 1300
    assert result.record["faults"][0]["reason"] == timeouts[0].reason  # stored as printed


def test_overruns_come_out_of_the_bank_and_are_told_to_the_bot():
    seen = []

    class Watcher(InProcessPlayer):
        def decide(self, request, timeout_s):
            seen.append((request.time_left_ms, request.decision_ms, timeout_s))
            return super().decide(request, timeout_s)

    clock = Clock(decision_ms=10, bank_ms=200)
    result = play_match(spec(seed=1, clock=clock, games=1), players(Watcher(Slow(0.05), "slow")))
    calls = seen[:: 1 + 13]  # one call then 13 cards per deal
    assert calls[0][0] == 200 and calls[0][1] == 210
    assert 100 < calls[1][0] < 170  # ~40 ms overrun charged
    assert calls[1][1] == 10 + calls[1][0]
    timings = [
        e["ms"]
        for d in result.record["games"][0]["deals"]
        for e in d["decisions"]
        if e["seat"] == 0
    ]
    assert timings[0] >= 50
