"""A worker's inline judging: it judges its own just-played match while one more judging
fits in its share of the play (an urgent one in twice that), and queues the rest; a
match's hindsight is judged or sent once, whichever way it goes."""

from __future__ import annotations

import time
from pathlib import Path

from arena import audits
from arena.analysis.hindsight import Hindsight
from arena.config import Settings
from arena.store import Database
from tests.analysis_runs.site import Played
from tests.audits.site import cheat, fake_judging, history, honest
from tests.audits.test_hindsights import rows, the_row


def test_the_budget_allows_a_judging_while_one_more_fits_in_its_share() -> None:
    budget = audits.Budget(0.5)
    budget.played(2.0)
    assert budget.allows()  # the first: its cost is not known yet
    budget.judged(4.0)  # 4 s so far, 4 s a judging: the next fits once 8 s fit, at 16 s played
    budget.played(12.0)
    assert not budget.allows()
    budget.played(2.0)
    assert budget.allows()
    never = audits.Budget(0.0)
    never.played(100.0)
    assert not never.allows()


def test_within_the_budget_the_match_is_judged_here_once(
    db: Database, played: Played, monkeypatch, tmp_path: Path
) -> None:
    def slow(progress):
        time.sleep(0.2)
        return [Hindsight(0, 3, ())]

    fake_judging(monkeypatch, slow)
    budget, sent = audits.Budget(0.5), []
    budget.played(1.0)
    args = (
        db,
        Settings(db.url.render_as_string(hide_password=False), tmp_path),
        budget,
        played.match_id,
        "w",
        sent.append,
    )
    assert audits.judge_or_send(*args) == ["done"]
    assert the_row(db).status == "done" and sent == []
    assert budget.judged_s >= 0.2  # the judging's wall time is charged to the budget
    assert audits.judge_or_send(*args) == []  # the same match again: nothing to do


def past_the_budget(db: Database, match_id: int, tmp_path: Path) -> tuple[list[str], list]:
    budget, sent = audits.Budget(0.5), []
    budget.played(2.0)
    budget.judged(0.9)  # one more of 0.9 s: past 0.5 of 2 s, within twice that
    settings = Settings(db.url.render_as_string(hide_password=False), tmp_path)
    ended = audits.judge_or_send(db, settings, budget, match_id, "w", sent.append)
    assert audits.judge_or_send(db, settings, budget, match_id, "w", sent.append) == []
    return ended, sent


def test_past_the_budget_it_goes_to_the_queue(db: Database, monkeypatch, tmp_path: Path):
    fake_judging(monkeypatch, lambda progress: [Hindsight(0, 3, ())])
    match_id = history(db, tmp_path, honest)
    ended, sent = past_the_budget(db, match_id, tmp_path)
    [row] = [r for r in rows(db) if r.match_id == match_id]
    assert ended == ["sent"] and sent == [row.id]  # sent once
    assert row.status == "queued" and row.queued_at is not None


def test_past_the_budget_an_urgent_match_is_judged_all_the_same(
    db: Database, monkeypatch, tmp_path: Path
):
    fake_judging(monkeypatch, lambda progress: [Hindsight(0, 3, ())])
    match_id = history(db, tmp_path, cheat)
    assert past_the_budget(db, match_id, tmp_path) == (["done"], [])


def test_urgent_judgings_take_at_most_twice_the_share() -> None:
    budget = audits.Budget(0.5)
    budget.played(2.0)
    budget.judged(0.9)
    assert not budget.allows() and budget.allows(urgent=True)
    budget.judged(0.9)  # 1.8 s judged of 2 s played: one more would pass twice the share
    assert not budget.allows(urgent=True)


def test_a_share_of_0_queues_even_an_urgent_match(db: Database, monkeypatch, tmp_path: Path):
    fake_judging(monkeypatch, lambda progress: [Hindsight(0, 3, ())])
    match_id = history(db, tmp_path, cheat)
    never, sent = audits.Budget(0.0), []
    never.played(100.0)
    settings = Settings(db.url.render_as_string(hide_password=False), tmp_path)
    assert audits.judge_or_send(db, settings, never, match_id, "w", sent.append) == ["sent"]
