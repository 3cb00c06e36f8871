"""``analyse`` on records the referee wrote: it judges each decision from exactly what the
seat was sent (never the hidden hands), values every legal move, and is reproducible."""

from __future__ import annotations

import copy
import inspect

import pytest

from arena.analysis import analyse
from arena.analysis.evaluate import valuation
from arena.analysis.replay import turns
from arena.game import OVER, Deal, Observation, Ruleset, mask_of, parse_card, parse_cards
from arena.game.record import deal_record
from arena.house import HeuristicBot, RandomBot
from arena.house.master.inference import infer
from arena.house.master.strategy import equivalents
from arena.players.inprocess import InProcessPlayer
from tests.analysis.matches import SAMPLES, Recording, heuristics, play


@pytest.fixture(scope="module")
def rotated():
    """Two games of one deal (the seats rotate) and every request each entrant was sent."""
    players = [Recording(HeuristicBot(k), f"h{k}") for k in range(3)]
    players.append(Recording(RandomBot(3), "random"))
    return play(players, seed=4, games=2), players


@pytest.fixture(scope="module")
def record():
    return play(heuristics(1), seed=1)


def test_each_turn_is_the_request_the_entrant_was_sent(rotated):
    record, players = rotated
    for entrant, player in enumerate(players):
        seen = list(turns(record, entrant))
        assert [t.obs for t in seen] == [r.observation for r in player.requests]
        assert [t.decision for t in seen] == [r.id for r in player.requests]
        assert [(t.kind, t.game) for t in seen] == [(r.kind, r.game) for r in player.requests]
        assert {t.obs.seat for t in seen if t.game == 1} == {(entrant + 1) % 4}


def test_every_legal_move_has_a_value_and_the_loss_is_the_gap_to_the_best(rotated):
    record, _ = rotated
    for entrant in (0, 3):
        analysis = analyse(record, entrant, SAMPLES)
        seen = list(turns(record, entrant))
        assert [(v.game, v.deal, v.decision) for v in analysis.verdicts] == [
            (t.game, t.deal, t.decision) for t in seen
        ]
        for v, turn in zip(analysis.verdicts, seen, strict=True):
            legal = turn.obs.legal_calls or turn.obs.legal_cards
            assert v.chosen == turn.move and v.kind == turn.kind and not v.auto
            if len(legal) == 1:
                assert v.options == () and v.loss == 0 and v.label is None
                continue
            values = {o.move: o.value for o in v.options}
            assert list(values) == [str(m) for m in legal]
            assert values[v.best] == max(values.values())
            assert v.loss == pytest.approx(values[v.best] - values[v.chosen], abs=2e-3)
            if v.kind == "play":  # an equivalent card gets its class's value
                for card, option in equivalents(legal, infer(turn.obs).unseen).items():
                    assert values[str(card)] == values[str(option)]
        steps = [v.step for v in analysis.verdicts if v.game == 0]
        assert steps[0] in range(1, 5) and all(s in range(1, 57) for s in steps)


def test_the_same_inputs_give_the_same_analysis_and_progress_is_reported(record):
    calls = []
    first = analyse(record, 2, SAMPLES, seed=3, progress=lambda *a: calls.append(a))
    assert analyse(record, 2, SAMPLES, seed=3) == first
    total = len(first.verdicts)
    assert calls == [(done, total) for done in range(1, total + 1)]
    other = analyse(record, 2, SAMPLES, seed=4)
    assert [v.options for v in other.verdicts] != [v.options for v in first.verdicts]


def test_a_sample_budget_must_be_whole_batches():
    with pytest.raises(ValueError, match="multiple of 32"):
        analyse({"games": []}, 0, 100)


def test_the_referees_moves_are_shown_but_not_counted():
    """A fault's fallback, then a forfeited seat's moves (no decision id): auto, unlabelled
    and left out of the summary."""

    class Illegal(HeuristicBot):
        def play(self, obs):
            return next(c for c in parse_cards("2S 2H 2D 2C") if c not in obs.legal_cards)

    players = heuristics(2)
    players[1] = InProcessPlayer(Illegal(5), "illegal")
    record = play(players, seed=2, max_strikes=1)
    analysis = analyse(record, 1, SAMPLES)
    calls = [v for v in analysis.verdicts if v.kind == "call"]
    cards = [v for v in analysis.verdicts if v.kind == "play"]
    assert not calls[0].auto and all(v.auto and v.label is None for v in cards)
    assert cards[0].decision is not None and all(v.decision is None for v in cards[1:])
    assert any(v.options for v in cards)
    assert analysis.summary()["cards"]["count"] == 0


def test_the_valuation_reads_only_the_seats_observation():
    assert list(inspect.signature(valuation).parameters) == ["obs", "samples", "seed"]
    assert inspect.signature(valuation).parameters["obs"].annotation in (Observation, "Observation")


def test_the_hidden_cards_do_not_change_a_verdict(record):
    """The same record but for two cards swapped between two other seats, unplayed when the
    analysed seat made its decision in trick 4 (play went on differently after it): the
    seat saw the same, so every verdict up to that decision is the same."""
    seat = 0
    log = record["games"][0]["deals"][0]["decisions"]
    upto = max(step for step, e in enumerate(log, 1) if e["seat"] == seat and step <= 4 + 16)
    other = swapped(record, seat, upto)
    deal, changed = (r["games"][0]["deals"][0] for r in (record, other))
    assert deal["hands"][seat] == changed["hands"][seat] and deal["hands"] != changed["hands"]
    before = [v for v in analyse(record, seat, SAMPLES).verdicts if v.step <= upto]
    after = [v for v in analyse(other, seat, SAMPLES).verdicts if v.step <= upto]
    assert before == after and len(before) >= 4 and any(v.options for v in before[1:])


def swapped(record: dict, seat: int, upto: int) -> dict:
    """``record`` whose first deal is dealt again with a card of one other seat swapped for
    a card of the same suit (not spades) of another, both unplayed up to step ``upto``; play
    follows the record to that step and the house heuristic after it."""
    game = record["games"][0]
    rec = game["deals"][0]
    rules = Ruleset.from_dict(game["rules"])
    hands = [mask_of(parse_cards(h)) for h in rec["hands"]]
    cards = [c for trick in rec["tricks"] for c in trick["cards"]]
    played = mask_of(parse_cards(cards[: upto - 4]))
    others = [s for s in range(4) if s != seat]
    a, b, x, y = next(
        (a, b, x, y)
        for a in others
        for b in others
        for x in range(13, 52)
        for y in range(x // 13 * 13, x // 13 * 13 + 13)
        if a != b and (hands[a] & ~played) >> x & 1 and (hands[b] & ~played) >> y & 1
    )
    hands[a] ^= 1 << x | 1 << y
    hands[b] ^= 1 << x | 1 << y
    deal = Deal(rules, rec["seed"], rec["dealer"], rec["index"], hands=hands)
    calls = [rec["calls"][(rec["dealer"] + 1 + k) % 4] for k in range(4)]
    log = rec["decisions"][:upto]
    for step in range(1, 57):
        actor = deal.seat_to_act()
        if step <= 4:
            deal.call(actor, calls[step - 1])
        elif step <= upto:
            deal.play(actor, parse_card(cards[step - 5]))
        else:
            deal.play(actor, HeuristicBot(actor).play(deal.observation(actor)))
            log.append({"seat": actor, "id": 1000 + step, "ms": 0.0})
    assert deal.phase == OVER
    out = copy.deepcopy(record)
    out["games"][0]["deals"][0] = {**deal_record(deal), "decisions": log}
    return out
