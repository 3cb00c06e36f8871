"""The verdict types: labels need a large and clear loss, the summary counts only the bot's
own choices, and an analysis survives JSON."""

from __future__ import annotations

import json

import pytest

from arena.analysis import THRESHOLDS, Analysis, OptionValue, Verdict
from arena.analysis.verdict import CLEAR_Z, label_of


@pytest.mark.parametrize(("name", "least"), THRESHOLDS)
def test_a_loss_takes_the_label_of_the_highest_threshold_it_reaches(name, least):
    assert label_of(least, 0.0) == name
    below = [n for n, t in THRESHOLDS if t < least]
    assert label_of(least - 0.001, 0.0) == (below[-1] if below else None)


def test_a_loss_within_sampling_error_gets_no_label():
    big = THRESHOLDS[-1][1] * 2
    assert label_of(big, big / CLEAR_Z + 0.01) is None
    assert label_of(big, big / CLEAR_Z - 0.01) == THRESHOLDS[-1][0]
    assert label_of(0.0, 0.0) is None


def verdict(kind: str, loss: float, label: str | None = None, **kw) -> Verdict:
    options = (OptionValue("2", 1.0, 0.1), OptionValue("3", 1.0 - loss, 0.1))
    fields = dict(
        game=0, deal=0, decision=1, step=1, kind=kind, chosen="3", best="2", loss=loss,
        loss_se=0.1, label=label, options=options, auto=False,
    )  # fmt: skip
    return Verdict(**{**fields, **kw})


def test_summary_counts_the_bots_own_decisions_with_a_choice():
    verdicts = (
        verdict("call", 2.0, "mistake"),
        verdict("play", 0.0),
        verdict("play", 1.0, "inaccuracy"),
        verdict("play", 9.0, auto=True),  # the referee's move: not counted
        verdict("play", 0.0, options=()),  # forced: not counted
    )
    summary = Analysis(2, 64, 0, verdicts).summary()
    assert summary["overall"] == {"mean": 1.0, "se": 0.577, "count": 3}
    assert summary["calls"] == {"mean": 2.0, "se": None, "count": 1}
    assert summary["cards"] == {"mean": 0.5, "se": 0.5, "count": 2}
    assert summary["labels"] == {"inaccuracy": 1, "mistake": 1, "blunder": 0}
    assert Analysis(2, 64, 0, ()).summary()["overall"] == {"mean": None, "se": None, "count": 0}


def test_an_analysis_survives_json():
    analysis = Analysis(1, 64, 7, (verdict("call", 2.0, "mistake"), verdict("play", 0.0)))
    data = json.loads(json.dumps(analysis.to_dict()))
    assert data["summary"] == analysis.summary()
    assert Analysis.from_dict(data) == analysis
    with pytest.raises(ValueError, match="callbreak-analysis"):
        Analysis.from_dict({**data, "version": 99})
