"""The master bot: calls and cards chosen by determinised search under a time budget.

Each decision samples deals of the unseen cards consistent with what the seat has seen
(``inference``), weights them by how well they explain the calls, plays every option out on
every sample with the compiled policy (``kernels``), and picks the option with the best
expected deal score under the ruleset's own scoring (``score_tenths``), not the most tricks.
It samples in batches until the budget is spent, or stops early once no other option can
beat the leader by more than a twentieth of a point.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from arena.bots.house.base import HouseBot
from arena.bots.house.calling import choose_call, estimate_tricks
from arena.bots.house.master.inference import Inference, call_likelihood, infer
from arena.game import Card, Observation
from arena.game.cards import ABOVE, SUIT_OF
from arena.game.scoring import score_tenths
from arena.game.tricks import head_code

BATCH = 32  # samples per batch
MIN_SAMPLES = 512  # before any early stop (more measured a little stronger)
CLEAR_Z = 3.0  # standard errors of the early-stop test
INDIFFERENT = 0.5  # tenths of a point: a gain too small to keep searching for
EPSILON = 0.05  # chance that a playout move is random instead of the policy's
# Under pagat the searching seat plays its later cards in the playouts without seeing the
# sampled hands: a seat that knows them would duck now counting on tricks it then cannot be
# sure of, and the calls overshot the tricks actually taken by 0.4 on average. Under bhoos,
# where a made call is rarely lost by a trick too many, sighted playouts measured better.
BLIND_SCORING = ("pagat",)
CARDS_PER_DEAL = 13


def think_seconds(obs: Observation, decision_ms: int, time_left_ms: int, share: float) -> float:
    """How long this decision may think: ``share`` of its free allowance plus an even part of
    the bank over the decisions left in the game, never more than ``share`` of the time the
    request allows (``decision_ms`` is the allowance plus the bank)."""
    allowance = max(0, decision_ms - time_left_ms)
    this_deal = len(obs.hand) + (1 if obs.phase == "calling" else 0)
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
        options = list(obs.legal_calls)
        know = infer(obs)
        rules = obs.rules
        tables = np.array([[score_tenths(k, t, rules) for t in range(14)] for k in options])
        known = list(obs.calls)
        leader = (obs.dealer + 1) % 4

        def batch(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
            hands = self._sample(know, n, seed)
            weights = self._weights(hands, know, obs)
            calls = np.zeros((n, 4), np.int64)
            for s in range(4):
                if s == obs.seat:
                    continue
                if known[s] is not None:
                    calls[:, s] = known[s]
                else:  # a later caller: as a sensible player with that hand would
                    for w in range(n):
                        est = estimate_tricks(int(hands[w, s]))
                        calls[w, s] = choose_call(est, rules.scoring, obs.legal_calls)
            k = len(options)
            rows = np.tile(calls, (k, 1))
            rows[:, obs.seat] = np.repeat(np.array(options, np.int64), n)
            won = self._playouts(np.tile(hands, (k, 1)), rows, np.full(k * n, -1), obs, leader)
            mine = won[:, obs.seat].reshape(k, n)
            return np.take_along_axis(tables, mine, axis=1), weights

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
        table = np.array([score_tenths(obs.calls[obs.seat] or 0, t, obs.rules) for t in range(14)])
        calls = np.array([c or 0 for c in obs.calls], np.int64)

        def batch(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
            hands = self._sample(know, n, seed)
            weights = self._weights(hands, know, obs)
            k = len(options)
            first = np.repeat(np.array(options, np.int64), n)
            rows = np.tile(calls, (k * n, 1))
            won = self._playouts(np.tile(hands, (k, 1)), rows, first, obs, obs.current.leader)
            return table[won[:, obs.seat]].reshape(k, n), weights

        return options[self._search(obs, len(options), batch, start, timing)]

    # -- search ------------------------------------------------------------------------
    def _search(
        self, obs: Observation, k: int, batch, start: float, timing: tuple[int, int] | None
    ) -> int:
        """Index of the option with the best weighted mean score over sampled batches: until
        the think time of ``timing`` (decision_ms, time_left_ms) is spent, or without one up
        to ``samples``; earlier when the choice is settled."""
        if timing is None:
            limit, budget = self.samples, None
        else:
            limit, budget = 1 << 30, think_seconds(obs, *timing, self.share)
        totals = np.zeros(k)
        sq = np.zeros((k, k))
        weight_sum = 0.0
        done = 0
        last = start
        slowest = 0.0
        while done < limit:
            scores, weights = batch(BATCH, self._rng.getrandbits(31))
            now = self.clock()
            slowest = max(slowest, now - last)
            last = now
            done += BATCH
            totals += scores @ weights
            weight_sum += float(weights.sum())
            diffs = scores[:, None, :] - scores[None, :, :]
            sq += (diffs**2) @ weights
            if done >= MIN_SAMPLES and _settled(totals, sq, weight_sum, done):
                break
            if budget is not None and now - start + slowest > budget:
                break
        self.last_samples = done
        return int(np.argmax(totals))

    def _sample(self, know: Inference, n: int, seed: int) -> np.ndarray:
        from arena.bots.house.master import kernels

        cards = [c for c in range(52) if know.unseen >> c & 1]
        allowed = np.array([know.allowed(c) for c in cards], np.int64)
        fixed = np.zeros(4, np.int64)
        fixed[know.seat] = know.hand
        need = np.array(know.need, np.int64)
        return kernels.sample_hands(n, seed, fixed, np.array(cards, np.int64), allowed, need)

    def _weights(self, hands: np.ndarray, know: Inference, obs: Observation) -> np.ndarray:
        """Each sample's likelihood of the calls already made (1 for none)."""
        weights = np.ones(hands.shape[0])
        for s, call in enumerate(obs.calls):
            if s == obs.seat or call is None:
                continue
            for w in range(hands.shape[0]):
                dealt = int(hands[w, s]) | know.played_by[s]
                weights[w] *= call_likelihood(dealt, call, obs)
        total = weights.sum()
        return weights / total * len(weights) if total > 0 else np.ones(hands.shape[0])

    def _playouts(
        self, hands: np.ndarray, calls: np.ndarray, first: np.ndarray, obs: Observation, leader
    ) -> np.ndarray:
        from arena.bots.house.master import kernels

        rules = obs.rules
        trick = np.array([int(c) for c in obs.current.cards], np.int64)
        to_act = obs.seat if obs.phase != "calling" else leader
        return kernels.playouts(
            hands,
            calls,
            first.astype(np.int64),
            to_act,
            leader,
            trick,
            np.array(obs.won, np.int64),
            head_code(rules),
            rules.must_trump,
            rules.scoring == "bhoos",
            EPSILON,
            obs.seat if rules.scoring in BLIND_SCORING else -1,
            self._rng.getrandbits(31),
        )


def _settled(totals: np.ndarray, sq: np.ndarray, weight_sum: float, n: int) -> bool:
    """Whether no other option can beat the leading one by more than INDIFFERENT tenths of
    a point, at CLEAR_Z standard errors (its mean gap over the leader, plus CLEAR_Z standard
    errors, is under that). Options that scored the same on every sample so far count as
    settled."""
    best = int(np.argmax(totals))
    for j in range(len(totals)):
        if j == best:
            continue
        gap = (totals[best] - totals[j]) / weight_sum
        var = max(0.0, sq[best, j] / weight_sum - gap * gap)
        if CLEAR_Z * (var / n) ** 0.5 - gap >= INDIFFERENT:
            return False
    return True


def distinct(legal: tuple[Card, ...], unseen: int) -> list[Card]:
    """The legal cards up to equivalence: two cards of a suit with no unseen card between
    them win and lose the same tricks, so only the lowest of such a run is searched."""
    out: list[Card] = []
    for card in sorted(legal):
        if out:
            prev = out[-1]
            between = ABOVE[prev] & ~ABOVE[card] & ~(1 << card)
            if SUIT_OF[prev] == SUIT_OF[card] and not unseen & between:
                continue
        out.append(card)
    return out
