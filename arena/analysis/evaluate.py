"""Judge every decision of one entrant of a match by the master bot's search.

For each of the entrant's turns the master values every option from the observation the seat
was sent and nothing else (``valuation``): it samples deals of the hidden cards that fit what
the seat saw, plays each option out on the same deals and scores the seat's deal by the
ruleset. A card equivalent to another (no unseen card between them) gets its class's value.
The loss of the move played is the gap to the best option, paired over the shared deals.

Standard errors come from batch means: each batch of ``BATCH`` samples is an independent
sampling chain, but samples within a batch are correlated (per-sample errors measured about
half the batch-means ones), so a valuation needs two batches at least.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from arena.analysis.replay import Turn, turns
from arena.analysis.verdict import DIGITS, Analysis, OptionValue, Verdict, label_of
from arena.game import Observation, derive_seed
from arena.house.master import MasterBot
from arena.house.master.strategy import BATCH, Valuation

DEFAULT_SAMPLES = 1024  # per decision: docs/analysis.md weighs time against agreement


def valuation(obs: Observation, samples: int, seed: int) -> Valuation:
    """The master's valuation of the decision ``obs`` asks for: the only input is what the
    seat saw, so the hidden hands cannot leak into a verdict."""
    return MasterBot(seed=seed, samples=samples).valuation(obs)


def analyse(
    record: dict[str, Any],
    entrant: int,
    samples: int = DEFAULT_SAMPLES,
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
) -> Analysis:
    """The verdict on each decision of ``entrant`` in the finished match ``record``, with
    ``samples`` sampled deals per decision (a multiple of ``BATCH``, two batches at least).
    ``progress(done, total)`` is called after each decision. Each decision's samples are
    seeded from (``seed``, game, deal, step), so the analysis is reproducible."""
    if samples < 2 * BATCH or samples % BATCH:
        raise ValueError(f"samples must be a multiple of {BATCH}, at least {2 * BATCH}")
    todo = list(turns(record, entrant))
    verdicts = []
    for done, turn in enumerate(todo, 1):
        verdicts.append(judge(turn, samples, seed))
        if progress is not None:
            progress(done, len(todo))
    return Analysis(entrant, samples, seed, tuple(verdicts))


def judge(turn: Turn, samples: int, seed: int) -> Verdict:
    """The verdict on one turn: forced moves (one legal move) are not searched."""
    obs = turn.obs
    legal: tuple[int, ...] = obs.legal_calls or obs.legal_cards
    if len(legal) == 1:
        return Verdict(*_place(turn), turn.move, 0.0, 0.0, None, (), turn.auto)
    found = valuation(obs, samples, derive_seed("analysis", seed, turn.game, turn.deal, turn.step))
    means = _batch_means(found.scores)
    value = means.mean(axis=1)
    row = {option: i for i, option in enumerate(found.options)}
    index = {move: row[found.classes[move]] for move in legal}
    options = tuple(OptionValue(str(m), _round(value[i]), _se(means[i])) for m, i in index.items())
    chosen = next(i for move, i in index.items() if str(move) == turn.move)
    best = int(np.argmax(value))
    if value[chosen] >= value[best]:
        best = chosen
    best_move = turn.move if best == chosen else str(found.options[best])
    loss, loss_se = _round(value[best] - value[chosen]), _se(means[best] - means[chosen])
    label = None if turn.auto else label_of(loss, loss_se)
    return Verdict(*_place(turn), best_move, loss, loss_se, label, options, turn.auto)


def _place(turn: Turn) -> tuple[int, int, int | None, int, str, str]:
    """The verdict's leading fields: where the turn is, its kind and the move played."""
    return turn.game, turn.deal, turn.decision, turn.step, turn.kind, turn.move


def _batch_means(scores: np.ndarray) -> np.ndarray:
    """Options × batches: each batch's mean score in points (batches are independent)."""
    k, n = scores.shape
    return scores.reshape(k, n // BATCH, BATCH).mean(axis=2) / 10


def _se(means: np.ndarray) -> float:
    return _round(float(np.std(means, ddof=1)) / math.sqrt(len(means)))


def _round(points: float) -> float:
    return round(float(points), DIGITS)
