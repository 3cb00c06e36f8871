"""The small-sample correction of the intervals (``arena.ratings.intervals``): its parts on
small arrays, and a newcomer's coverage on simulated fields of known strength."""

import numpy as np
import pytest

from arena.ratings import ELO_CENTER, ELO_SCALE, fit
from arena.ratings.games import Z95, tables
from arena.ratings.intervals import PRIOR_DF, groups_per_bot, misfit, moderated, t95


def test_t95_is_students_quantile() -> None:
    # the 97.5 % points of Student's t (any table)
    known = {4: 2.776445, 8: 2.306004, 16: 2.119905, 30: 2.042272, 120: 1.979930}
    for df, quantile in known.items():
        assert float(t95(np.array(df))) == pytest.approx(quantile, abs=1e-3 if df < 16 else 1e-6)
    assert float(t95(np.array(1e9))) == pytest.approx(Z95)


def test_groups_per_bot_counts_the_groups_it_shared_with_another_bot() -> None:
    games = [{"a": 1, "b": 0}, {"a": 2, "b": 1}, {"a": 0, "c": 1}, {"c": 5}]
    t = tables(games, ["m1", "m1", "m2", "m3"])  # c alone in m3: it measured nothing there
    assert dict(zip(t.bots, groups_per_bot(t).tolist(), strict=True)) == {"a": 2, "b": 1, "c": 1}


def test_a_bot_of_one_group_takes_the_pooled_variance_and_many_groups_keep_their_own() -> None:
    robust = np.array([1e-6, 2.0, 1.0])  # one group: its sandwich is about 0, whatever it did
    model = np.array([4.0, 1.0, 1.0])
    groups = np.array([1, 401, 401])
    phi = misfit(robust, model, groups)
    assert phi == pytest.approx((2.0 + 1.0) * 401 / (400 + 400))
    var, quantile = moderated(robust, model, groups)
    assert var[0] == pytest.approx(phi * 4.0)  # nothing of its own: φ times the model's
    assert quantile[0] == pytest.approx(float(t95(np.array(PRIOR_DF))))
    assert var[1] == pytest.approx(2.0, rel=0.03) and var[2] == pytest.approx(1.0, rel=0.03)
    assert quantile[1] < 1.01 * Z95  # a large sample's interval is the sandwich's


def _newcomer_coverage(seeds: range, checks: tuple[int, ...]) -> dict[int, float]:
    """Eight bots of known Elo (Gumbel points: Bradley-Terry exactly) play 60 random
    four-bot matches of four games, then a ninth plays matches against three random ones;
    the share of seeds whose ninth bot's interval holds its true Elo after each of
    ``checks`` matches."""
    hits = dict.fromkeys(checks, 0)
    for seed in seeds:
        rng = np.random.default_rng(seed)
        truth = rng.normal(0.0, 200.0, 9)
        games: list[dict[int, float]] = []
        groups: list[int] = []
        tables_ = [rng.choice(8, 4, replace=False).tolist() for _ in range(60)]
        tables_ += [[8, *rng.choice(8, 3, replace=False).tolist()] for _ in range(max(checks))]
        for match, table in enumerate(tables_):
            for _ in range(4):
                points = truth[table] / ELO_SCALE + rng.gumbel(size=4)
                games.append(dict(zip(table, points.tolist(), strict=True)))
                groups.append(match)
            played = match - 59
            if played in hits:
                r = fit(games, groups)[8]
                true_elo = ELO_CENTER + truth[8] - truth.mean()
                hits[played] += r.ci_low <= true_elo <= r.ci_high
    return {m: h / len(seeds) for m, h in hits.items()}


def test_a_newcomers_interval_holds_its_true_elo_from_its_first_matches() -> None:
    """Without the correction the same fields covered 32 % after one match, 86 % after
    four and 92 % after sixteen (a bot in one match has a sandwich of about 0)."""
    shares = _newcomer_coverage(range(200), (1, 4, 16))
    assert all(0.91 <= share <= 0.99 for share in shares.values()), shares
