"""``arena analyse``: a finished match's entrants judged here, without a broker, and their
summary printed (mean loss per decision, labels, costliest decisions); asked again, the
stored analysis is shown; ``arena replay show --analysis`` prints the verdicts beside each
deal. The match is played in-process in milliseconds (``tests/analysis_runs/site.py``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.orm import undefer

from arena.analysis import Analysis
from arena.store import BlobStore, Database, MatchAnalysis, upgrade
from tests.analysis_runs.site import Played, played_match
from tests.cli.test_cli import ok, one_line_error


@pytest.fixture
def played(home: Path) -> Played:
    url = f"sqlite:///{home / 'arena.db'}"
    upgrade(url)
    db = Database(url)
    try:
        return played_match(db, BlobStore(home / "data" / "blobs"))
    finally:
        db.dispose()


def stored(home: Path) -> list[MatchAnalysis]:
    db = Database(f"sqlite:///{home / 'arena.db'}")
    try:
        with db.session(read_only=True) as s:
            query = select(MatchAnalysis).options(undefer(MatchAnalysis.result))
            return list(s.scalars(query.order_by(MatchAnalysis.id)))
    finally:
        db.dispose()


def test_analyse_judges_every_contestant_and_prints_the_summary(arena, home, played):
    out = ok(arena("analyse", played.match_id, "--samples", "64"))
    rows = stored(home)
    assert [(r.entrant, r.status, r.requested_by) for r in rows] == [
        (0, "done", None),
        (1, "done", None),
    ]
    assert f"Analysis of match {played.match_id}" in out
    for row, bot in zip(rows, ("alice-bot@1", "bob-bot@1"), strict=True):
        mean = f"{row.mean_loss:.3f} ±{row.mean_loss_se:.3f}"
        labels = rf"{row.inaccuracies}\s+│\s+{row.mistakes}\s+│\s+{row.blunders}"
        line = (
            rf"│\s+{row.entrant}\s+│ {re.escape(bot)}\s+│\s+{row.decisions}\s+│\s+{re.escape(mean)}"
        )
        assert re.search(line + r".*" + labels, out), out
        assert f"Costliest decisions of {bot} (entrant {row.entrant})" in out
        worst = max(
            (v for v in Analysis.from_dict(row.result).verdicts if v.counts), key=lambda v: v.loss
        )
        cells = (worst.game + 1, worst.deal + 1, worst.step, worst.kind, worst.chosen, worst.best)
        assert re.search(r"\s+│\s+".join(map(str, cells)) + rf"\s+│\s+{worst.loss:.3f} ±", out), out
    again = ok(arena("analyse", played.match_id, "--samples", "64", "--entrant", "1"))
    assert [r.id for r in stored(home)] == [r.id for r in rows]  # the stored one, shown
    assert f"{rows[1].mean_loss:.3f} ±" in again and "alice-bot" not in again


def test_replay_show_prints_the_verdicts_beside_each_deal(arena, home, played):
    one_line_error(
        arena("replay", "show", played.match_id, "--analysis"),
        f"match {played.match_id} has no finished analysis: `arena analyse {played.match_id}`",
    )
    ok(arena("analyse", played.match_id, "--samples", "64", "--entrant", "2"))
    out = ok(arena("replay", "show", played.match_id, "--analysis"))
    [row] = stored(home)
    verdicts = Analysis.from_dict(row.result).verdicts
    # the record's name of entrant 2 (its house player's, in this test)
    deal, table = out.split("The master on house-heuristic#2 (64 samples)")
    assert "Game 1, deal 1" in deal and "Match standings" in table
    steps = re.findall(r"^│\s+(\d+)\s+│ (call|play)\s+│ (\S+)\s+│ (\S+)\s+│", table, re.M)
    assert steps == [(str(v.step), v.kind, v.chosen, v.best) for v in verdicts]


def test_what_analyse_refuses(arena, played):
    one_line_error(arena("analyse", played.pending_id), "has not finished")
    one_line_error(arena("analyse", played.match_id, "--samples", "100"), "multiple of 32")
    one_line_error(arena("analyse", 999), "no match with id 999")
