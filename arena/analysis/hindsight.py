"""Every decision of an entrant judged twice: by what its seat could know, and by the true deal.

A bot that knows hidden hands (remembered from an earlier rotation of the same deals, or
told by a partner) follows the true deal where the two judgements part; an honest bot
follows what it could know about as often in any game. Where they part is a *telling*
decision: the best option under the true deal (all hands known, which the record holds)
is not the best under the seat's knowledge (its hand and the open play), and is clearly
better under the true deal. At each telling decision the bot followed the truth, the
knowledge, or neither. Card luck does not enter: each decision is a trial of its own.

For a pair the same is asked with one other seat's hand known (``with_hand``): the seat's
knowledge plus that hand, against the knowledge alone.

Pure: a match record in, the telling decisions out. The cost is in the valuations, so the
true deal is valued first (few samples: nothing is hidden but the playouts' noise) and the
seat's knowledge only where the true deal could tell at all.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from arena.analysis.replay import Turn, turns
from arena.game import derive_seed, mask_of, parse_cards
from arena.house.master import MasterBot
from arena.house.master.inference import infer
from arena.house.master.strategy import Valuation, distinct

KNOWING_SAMPLES = 128  # sampled deals for the seat's knowledge
TRUTH_SAMPLES = 64  # playouts of the true deal (its only noise is the playouts')
TELLS = 1.0  # points: how much better the truth's best must be, under the truth
FOLLOWED = ("truth", "knowledge", "neither")


@dataclass(frozen=True)
class Telling:
    """One telling decision: where it is, what was best by the truth (or the hand the
    test adds) and by the seat's knowledge, and which the bot followed."""

    game: int
    deal: int
    step: int
    decision: int | None
    kind: str  # "call" | "play"
    chosen: str
    truth: str
    knowledge: str
    followed: str  # one of FOLLOWED
    seen: int | None = None  # the entrant whose hand was added; None: the whole true deal

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Hindsight:
    """An entrant's telling decisions in one match, and how many decisions were judged."""

    entrant: int
    judged: int
    telling: tuple[Telling, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "entrant": self.entrant,
            "judged": self.judged,
            "telling": [t.to_dict() for t in self.telling],
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Hindsight:
        return cls(d["entrant"], d["judged"], tuple(Telling(**t) for t in d["telling"]))


def hindsight(
    record: dict[str, Any],
    entrant: int,
    seed: int = 0,
    with_hand: Iterable[int] = (),
    samples: tuple[int, int] = (KNOWING_SAMPLES, TRUTH_SAMPLES),
    progress: Callable[[int, int], None] | None = None,
) -> Hindsight:
    """The telling decisions of ``entrant`` in the finished match ``record``: under the whole
    true deal, and under each entrant's hand in ``with_hand`` added to the seat's knowledge.
    ``samples`` = (knowledge's, truth's) valuations, whole batches. Seeded per decision
    from (``seed``, game, deal, step): the same inputs give the same answer."""
    knowing_n, truth_n = samples
    todo = [t for t in turns(record, entrant) if not t.auto and _choice(t)]
    others = tuple(with_hand)
    found: list[Telling] = []
    for done, turn in enumerate(todo, 1):
        held = _held(record, turn)
        game = record["games"][turn.game]
        tests: list[tuple[int | None, Mapping[int, int]]] = [(None, held)]
        for other in others:
            seat = game["seats"].index(other)
            tests.append((other, {seat: held[seat]}))
        found += judge(turn, tests, knowing_n, truth_n, seed)
        if progress is not None:
            progress(done, len(todo))
    return Hindsight(entrant, len(todo), tuple(found))


def judge(
    turn: Turn,
    tests: list[tuple[int | None, Mapping[int, int]]],
    knowing_n: int,
    truth_n: int,
    seed: int,
) -> list[Telling]:
    """The telling judgements of one turn, one per test (what is known) that tells. The
    first test is the whole true deal: where even it cannot tell, one hand cannot either,
    and the turn costs one valuation."""
    key = (seed, turn.game, turn.deal, turn.step)
    knowledge: Valuation | None = None
    out = []
    for n, (seen, known) in enumerate(tests):
        told = _value(turn, truth_n, derive_seed("hindsight", *key, n), known)
        if not _can_tell(told):
            if n == 0:
                break
            continue
        if knowledge is None:
            knowledge = _value(turn, knowing_n, derive_seed("hindsight", *key), None)
        telling = _telling(turn, told, knowledge, seen)
        if telling is not None:
            out.append(telling)
    return out


def _value(turn: Turn, n: int, seed: int, known: Mapping[int, int] | None) -> Valuation:
    return MasterBot(seed=seed, samples=n).valuation(turn.obs, known)


def _means(found: Valuation) -> dict[int, float]:
    """Each searched option's mean deal score, in points."""
    return dict(zip(found.options, (found.scores.mean(axis=1) / 10).tolist(), strict=True))


def _can_tell(told: Valuation) -> bool:
    """Whether some option is TELLS points worse than the best under what is known: only
    then can the knowledge's best be clearly worse."""
    values = _means(told).values()
    return max(values) - min(values) >= TELLS


def _telling(turn: Turn, told: Valuation, knowledge: Valuation, seen: int | None) -> Telling | None:
    truth, known = _means(told), _means(knowledge)
    best_truth = max(truth, key=truth.__getitem__)
    best_known = max(known, key=known.__getitem__)
    if truth[best_truth] - truth[best_known] < TELLS:
        return None
    chosen = _class(turn, knowledge)
    followed = FOLLOWED[0 if chosen == best_truth else 1 if chosen == best_known else 2]
    return Telling(
        turn.game,
        turn.deal,
        turn.step,
        turn.decision,
        turn.kind,
        turn.move,
        _text(turn, best_truth),
        _text(turn, best_known),
        followed,
        seen,
    )


def _class(turn: Turn, found: Valuation) -> int:
    """The option the move played belongs to (equivalent cards share one)."""
    legal = turn.obs.legal_calls or turn.obs.legal_cards
    move = next(m for m in legal if str(m) == turn.move)
    return found.classes[move]


def _text(turn: Turn, option: int) -> str:
    legal = turn.obs.legal_calls or turn.obs.legal_cards
    return str(next(m for m in legal if m == option))


def _choice(turn: Turn) -> bool:
    """Whether the seat had two options that are not equivalent cards."""
    obs = turn.obs
    if obs.legal_calls:
        return len(obs.legal_calls) > 1
    legal = obs.legal_cards
    if len(legal) < 2:
        return False
    return len(distinct(legal, infer(obs).unseen)) > 1


def _held(record: dict[str, Any], turn: Turn) -> dict[int, int]:
    """What every other seat holds at the turn: its dealt hand less what it has played."""
    dealt = record["games"][turn.game]["deals"][turn.deal]["hands"]
    played = infer(turn.obs).played_by
    return {
        s: mask_of(parse_cards(hand)) & ~played[s]
        for s, hand in enumerate(dealt)
        if s != turn.obs.seat
    }


def match_hindsight(
    record: dict[str, Any],
    entrants: Iterable[int],
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
) -> list[Hindsight]:
    """Every listed entrant's telling decisions, each also judged with every other
    entrant's hand added (the pair tests). ``progress(done, total)`` counts entrants."""
    judged = list(entrants)
    everyone = range(len(record["games"][0]["seats"]))
    out = []
    for entrant in judged:
        others = [e for e in everyone if e != entrant]
        out.append(hindsight(record, entrant, seed, others))
        if progress is not None:
            progress(len(out), len(judged))
    return out
