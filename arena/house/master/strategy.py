"""The master bot: calls and cards chosen by determinised search under a time budget.

Each decision samples deals of the unseen cards that the rules allow after what the seat has
seen (``inference``), in proportion to how well they explain the other seats' calls and cards
(``reading``), plays every option out on every sample (``kernels``: the other seats by the
opponent model, this seat by a policy that sees only what it will see), and picks the option
with the best expected deal score under the ruleset's own scoring (``score_tenths``), not the
most tricks. It samples in batches until the budget is spent, or stops early once no other
option can beat the leader by more than a twentieth of a point.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from arena.game import CALLING, Card, Observation
from arena.game.cards import ABOVE, SUIT_OF
from arena.game.scoring import score_tenths
from arena.game.tricks import head_code
from arena.house.base import HouseBot
from arena.house.master.inference import Inference, infer, knowing
from arena.house.master.policy import MODEL, SIGHTED

BATCH = 32  # samples per batch
MIN_SAMPLES = 512  # before any early stop (more measured a little stronger)
CLEAR_Z = 3.0  # standard errors of the early-stop test
INDIFFERENT = 0.5  # tenths of a point: a gain too small to keep searching for
EPSILON = 0.05  # chance that a playout move is random instead of the policy's
SLIP = 0.1  # chance that another seat calls or plays unlike the opponent model
BURN, THIN = 60, 3  # swaps of the sampling chain before its first deal, and between deals
# The searching seat's own later cards in the playouts: a seat that saw the sampled hands
# would duck now counting on tricks it then cannot be sure of (sighted playouts made the
# calls overshoot the tricks taken by 0.4 a deal). The model sees only what is out.
OWN_POLICY = MODEL
# The calling simulation plays the seat's own cards by a policy that plays worse than the
# search will, so its tricks run short. Under bhoos (a made call scores in full, a trick too
# many costs nothing) calls measured best when the seat's own cards saw the sampled deal and
# half the samples counted one trick more; under pagat, where an overshoot loses the call,
# neither helped. By scoring: the own policy, and the chance a sample counts a trick more.
CALL_POLICY = {"pagat": MODEL, "bhoos": SIGHTED}
CALL_OPTIMISM = {"pagat": 0.0, "bhoos": 0.5}
EXACT = 4  # cards in hand from which the seat's own later cards are searched exhaustively
CARDS_PER_DEAL = 13
# A batch of playouts: (samples, seed) -> the seat's deal score in tenths, options x samples.
Batch = Callable[[int, int], np.ndarray]


@dataclass(frozen=True)
class Valuation:
    """One decision as the search sees it: ``scores[i, w]`` is the seat's deal score in
    tenths if it takes ``options[i]``, on sampled deal ``w``. Every option is played out on
    the same deals, so differences between options are paired. ``classes`` gives each legal
    move the option searched for it (equivalent cards share one: ``equivalents``)."""

    options: tuple[int, ...]  # calls, or Cards
    scores: np.ndarray
    classes: Mapping[int, int]


def think_seconds(obs: Observation, decision_ms: int, time_left_ms: int, share: float) -> float:
    """How long this decision may think: ``share`` of its free allowance plus an even part of
    the bank over the decisions left in the game, never more than ``share`` of the time the
    request allows (``decision_ms`` is the allowance plus the bank)."""
    allowance = max(0, decision_ms - time_left_ms)
    this_deal = len(obs.hand) + (1 if obs.phase == CALLING else 0)
    later_deals = (obs.rules.deals_per_game - obs.deal - 1) * (CARDS_PER_DEAL + 1)
    spend = allowance + time_left_ms / max(1, this_deal + later_deals)
    return share * min(spend, decision_ms) / 1000


class MasterBot(HouseBot):
    """Search player. Without a clock (``set_clock`` not called for a decision) it searches a
    fixed number of samples, which keeps the in-process house bot deterministic per seed."""

    name = "master"

    def __init__(
        self,
        seed: int = 0,
        samples: int = 512,
        share: float = 0.5,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not 0.0 < share <= 1.0:
            raise ValueError(f"share must be in (0, 1], not {share!r}")
        super().__init__(seed)
        self.samples, self.share, self.clock = samples, share, clock
        self._time: tuple[int, int] | None = None
        self.last_samples = 0  # samples searched by the last decision (for benchmarks)

    def set_clock(self, decision_ms: int, time_left_ms: int) -> None:
        """The clock of the next decision, as the request reports it."""
        self._time = (decision_ms, time_left_ms)

    # -- decisions ---------------------------------------------------------------------
    def call(self, obs: Observation) -> int:
        timing, self._time = self._time, None
        start = self.clock()
        options, batch = self._call_batch(obs, infer(obs))
        return options[self._search(obs, len(options), batch, start, timing)]

    def play(self, obs: Observation) -> Card:
        timing, self._time = self._time, None
        legal = obs.legal_cards
        if len(legal) == 1:
            return legal[0]
        start = self.clock()
        know = infer(obs)
        options = distinct(legal, know.unseen)
        if len(options) == 1:
            return options[0]
        batch = self._play_batch(obs, options, know)
        return options[self._search(obs, len(options), batch, start, timing)]

    def valuation(self, obs: Observation, known: Mapping[int, int] | None = None) -> Valuation:
        """Every option of the decision ``obs`` asks for, scored on ``samples`` sampled
        deals (whole batches) with no early stop: what the search knows of each option,
        not only which is best (``arena.analysis`` judges moves by it). Only ``obs`` is
        read, the seat's view, unless ``known`` gives other seats' hands (seat -> the cards
        it holds now), which the sampled deals then keep (``inference.knowing``)."""
        classes: Mapping[int, int]
        know = infer(obs) if not known else knowing(infer(obs), known)
        if obs.phase == CALLING:
            calls, batch = self._call_batch(obs, know)
            classes = {call: call for call in calls}
        else:
            classes = equivalents(obs.legal_cards, know.unseen)
            batch = self._play_batch(obs, distinct(obs.legal_cards, know.unseen), know)
        options = tuple(dict.fromkeys(classes.values()))
        runs = [batch(BATCH, self._rng.getrandbits(31)) for _ in range(-(-self.samples // BATCH))]
        return Valuation(options, np.concatenate(runs, axis=1).astype(float), classes)

    # -- playouts of one decision ------------------------------------------------------
    def _call_batch(self, obs: Observation, know: Inference) -> tuple[list[int], Batch]:
        """The calls open to the seat, and the batch that scores each on sampled deals."""
        options = list(obs.legal_calls)
        rules = obs.rules
        tables = np.array([[score_tenths(k, t, rules) for t in range(14)] for k in options])
        known = np.array([-1 if c is None else c for c in obs.calls], np.int64)
        later = [s for s in range(4) if s != obs.seat and obs.calls[s] is None]
        leader = (obs.dealer + 1) % 4
        deals = self._reader(obs, know)
        play = self._player(obs, leader, CALL_POLICY[rules.scoring])
        shift = reading().call_shift(obs)
        optimism = CALL_OPTIMISM[rules.scoring]

        def batch(n: int, seed: int) -> np.ndarray:
            from arena.house.master.opponent import heuristic_call

            hands = deals(n, seed)
            calls = np.tile(known, (n, 1))
            for w in range(n):  # a later caller calls as the model would with its hand
                for s in later:
                    calls[w, s] = heuristic_call(hands[w, s], shift, rules.min_call, rules.max_call)
            k = len(options)
            rows = np.tile(calls, (k, 1))
            rows[:, obs.seat] = np.repeat(np.array(options, np.int64), n)
            won = play(np.tile(hands, (k, 1)), rows, np.full(k * n, -1))
            mine = won[:, obs.seat].reshape(k, n)
            more = np.minimum(mine + 1, 13)
            scores = (1 - optimism) * np.take_along_axis(tables, mine, axis=1)
            scores += optimism * np.take_along_axis(tables, more, axis=1)
            return scores

        return options, batch

    def _play_batch(self, obs: Observation, options: Sequence[int], know: Inference) -> Batch:
        """The batch that scores each of ``options`` (cards) on sampled deals."""
        table = score_table(obs)
        calls = np.array([c or 0 for c in obs.calls], np.int64)
        deals = self._reader(obs, know)
        play = self._player(obs, obs.current.leader, OWN_POLICY)

        def batch(n: int, seed: int) -> np.ndarray:
            hands = deals(n, seed)
            k = len(options)
            first = np.repeat(np.array(options, np.int64), n)
            rows = np.tile(calls, (k * n, 1))
            won = play(np.tile(hands, (k, 1)), rows, first)
            return table[won[:, obs.seat]].reshape(k, n)

        return batch

    # -- search ------------------------------------------------------------------------
    def _search(
        self, obs: Observation, k: int, batch: Batch, start: float, timing: tuple[int, int] | None
    ) -> int:
        """Index of the option with the best mean score over sampled batches: until
        the think time of ``timing`` (decision_ms, time_left_ms) is spent, or without one up
        to ``samples``; earlier when the choice is settled."""
        if timing is None:
            limit, budget = self.samples, None
        else:
            limit, budget = 1 << 30, think_seconds(obs, *timing, self.share)
        totals = np.zeros(k)
        sq = np.zeros((k, k))
        done = 0
        last = start
        slowest = 0.0
        while done < limit:
            scores = batch(BATCH, self._rng.getrandbits(31))
            now = self.clock()
            slowest = max(slowest, now - last)
            last = now
            done += BATCH
            totals += scores.sum(axis=1)
            sq += ((scores[:, None, :] - scores[None, :, :]) ** 2).sum(axis=2)
            if done >= MIN_SAMPLES and _settled(totals, sq, done):
                break
            if budget is not None and now - start + slowest > budget:
                break
        self.last_samples = done
        return int(np.argmax(totals))

    def _reader(self, obs: Observation, know: Inference) -> Callable[[int, int], np.ndarray]:
        """Deals of the hidden cards for this decision, drawn in proportion to how well they
        explain the other seats' calls and plays (``reading.mh_deals``). Each batch starts a
        new chain from a uniform sample the rules allow."""
        from arena.house.master import kernels

        events = reading().history(obs)
        shift = reading().call_shift(obs)
        cards = [c for c in range(52) if know.unseen >> c & 1]
        allowed = np.zeros(52, np.int64)
        for c in cards:
            allowed[c] = know.allowed(c)
        fixed = np.zeros(4, np.int64)
        fixed[know.seat] = know.hand
        need = np.array(know.need, np.int64)
        unseen = np.array(cards, np.int64)
        calls = np.array([-1 if c is None else c for c in obs.calls], np.int64)
        played_by = np.array(know.played_by, np.int64)
        rules = obs.rules

        def deals(n: int, seed: int) -> np.ndarray:
            start = kernels.sample_hands(1, seed, fixed, unseen, allowed[unseen], need)[0]
            out, _ = reading().mh_deals(
                n,
                seed,
                start,
                know.seat,
                allowed,
                played_by,
                events,
                calls,
                shift,
                rules.min_call,
                rules.max_call,
                SLIP,
                head_code(rules),
                rules.must_trump,
                BURN,
                THIN,
            )
            return out

        return deals

    def _player(
        self, obs: Observation, leader: int, own: int
    ) -> Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]:
        """Playouts of this decision: ``play(hands, calls, first)`` gives the tricks each
        seat wins per row. What does not change between batches is prepared once here."""
        from arena.house.master import kernels

        rules = obs.rules
        fixed = (
            obs.seat if obs.phase != CALLING else leader,
            leader,
            np.array([int(c) for c in obs.current.cards], np.int64),
            np.array(obs.won, np.int64),
            reading().voids_now(obs),
            head_code(rules),
            rules.must_trump,
            rules.scoring == "bhoos",
            EPSILON,
            np.array([own if s == obs.seat else MODEL for s in range(4)], np.int64),
            EXACT if obs.phase != CALLING else 0,
            score_table(obs),
        )

        def play(hands: np.ndarray, calls: np.ndarray, first: np.ndarray) -> np.ndarray:
            seed = self._rng.getrandbits(31)
            return kernels.playouts(hands, calls, first.astype(np.int64), *fixed, seed)

        return play


def reading():
    """The compiled reading module, imported only once the cache is ready (see ``cache``)."""
    from arena.house.master import reading as module

    return module


def score_table(obs: Observation) -> np.ndarray:
    """The seat's score in tenths for each number of tricks, for its call this deal."""
    call = obs.calls[obs.seat] or 0
    return np.array([score_tenths(call, t, obs.rules) for t in range(14)], np.int64)


def _settled(totals: np.ndarray, sq: np.ndarray, n: int) -> bool:
    """Whether no other option can beat the leading one by more than INDIFFERENT tenths of
    a point, at CLEAR_Z standard errors (its mean gap over the leader, plus CLEAR_Z standard
    errors, is under that). Options that scored the same on every sample so far count as
    settled."""
    best = int(np.argmax(totals))
    for j in range(len(totals)):
        if j == best:
            continue
        gap = (totals[best] - totals[j]) / n
        var = max(0.0, sq[best, j] / n - gap * gap)
        if CLEAR_Z * (var / n) ** 0.5 - gap >= INDIFFERENT:
            return False
    return True


def equivalents(legal: tuple[Card, ...], unseen: int) -> dict[int, Card]:
    """Each legal card's class: two cards of a suit with no unseen card between them win and
    lose the same tricks, so a run of such cards is stood for by its lowest."""
    out: dict[int, Card] = {}
    lowest: Card | None = None
    for card in sorted(legal):
        if lowest is None or SUIT_OF[lowest] != SUIT_OF[card] or unseen & between(lowest, card):
            lowest = card
        out[card] = lowest
    return out


def between(low: int, high: int) -> int:
    """The cards strictly between ``low`` and ``high`` of one suit."""
    return ABOVE[low] & ~ABOVE[high] & ~(1 << high)


def distinct(legal: tuple[Card, ...], unseen: int) -> list[Card]:
    """The legal cards up to equivalence (``equivalents``): only these are searched."""
    return list(dict.fromkeys(equivalents(legal, unseen).values()))
