"""Tests for per-bot statistics."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.ratings import BotGameLine, bot_stats

Z95 = 1.959963984540054


def test_mean_and_interval_by_hand() -> None:
    # Per-game means 2, 4, 6: mean 4, sample SD 2, SE 2/sqrt(3).
    lines = [BotGameLine("a", None, p, 5, 0, 0, 0) for p in (10.0, 20.0, 30.0)]
    s = bot_stats(lines)["a"]
    assert (s.games, s.deals) == (3, 15)
    assert s.mean_points_per_deal == pytest.approx(4.0)
    assert s.ci_low == pytest.approx(4.0 - Z95 * 2 / math.sqrt(3))
    assert s.ci_high == pytest.approx(4.0 + Z95 * 2 / math.sqrt(3))


def test_games_of_one_group_form_one_cluster() -> None:
    # Match m1 totals 10 points in 10 deals, m2 30 in 10: cluster means 1 and 3.
    lines = [
        BotGameLine("a", "m1", 4.0, 5, 0, 0, 0),
        BotGameLine("a", "m1", 6.0, 5, 0, 0, 0),
        BotGameLine("a", "m2", 30.0, 10, 0, 0, 0),
    ]
    s = bot_stats(lines)["a"]
    assert s.mean_points_per_deal == pytest.approx(2.0)
    assert s.ci_high - s.mean_points_per_deal == pytest.approx(Z95 * 1.0)
    single = bot_stats(lines[:2])["a"]
    assert (single.ci_low, single.ci_high) == (-math.inf, math.inf)


def test_call_success_rate_and_faults() -> None:
    lines = [
        BotGameLine("a", 1, 8.1, 5, 4, 5, 0),
        BotGameLine("a", 2, -3.0, 5, 3, 5, 2),
        BotGameLine("b", 1, 0.0, 0, 0, 0, 1),
    ]
    stats = bot_stats(lines)
    assert stats["a"].call_success_rate == pytest.approx(0.7)
    assert (stats["a"].calls_made, stats["a"].calls, stats["a"].faults) == (7, 10, 2)
    assert math.isnan(stats["b"].call_success_rate)
    assert math.isnan(stats["b"].mean_points_per_deal)
    assert stats["b"].faults == 1


def test_rejects_inconsistent_lines() -> None:
    with pytest.raises(ValueError):
        bot_stats([BotGameLine("a", None, 1.0, 5, 6, 5, 0)])
    with pytest.raises(ValueError):
        bot_stats([BotGameLine("a", None, math.inf, 5, 0, 0, 0)])


_line = st.builds(
    BotGameLine,
    bot=st.sampled_from("ab"),
    group=st.one_of(st.none(), st.integers(0, 3)),
    points=st.integers(-40, 40).map(float),
    deals=st.integers(1, 5),
    calls_made=st.just(0),
    calls=st.integers(0, 5),
    faults=st.integers(0, 2),
)


@given(lines=st.lists(_line, min_size=1, max_size=20), data=st.data())
def test_order_of_lines_does_not_matter(lines, data) -> None:
    shuffled = data.draw(st.permutations(lines))
    before, after = bot_stats(lines), bot_stats(shuffled)
    assert before.keys() == after.keys()
    for bot, s in before.items():
        t = after[bot]
        assert (s.games, s.deals, s.calls, s.faults) == (t.games, t.deals, t.calls, t.faults)
        assert s.mean_points_per_deal == pytest.approx(t.mean_points_per_deal)
        assert s.ci_low <= s.mean_points_per_deal <= s.ci_high
