"""The urgent matches: a version's first judged matches, and a version whose judged
matches so far lean to the truth in later games; the others wait."""

from __future__ import annotations

from pathlib import Path

from arena.audits.suspects import urgent
from arena.store import BlobStore, Database
from tests.analysis_runs.site import play, tables_of
from tests.audits.site import cheat, history, honest, store_made_up


def test_a_new_version_is_urgent_until_it_has_its_first_judged_matches(
    db: Database, tmp_path: Path
) -> None:
    first, second = tables_of(db, BlobStore(tmp_path / "blobs"), 2)
    play(db, first)
    assert "has 0 judged matches" in (urgent(db, first) or "")
    store_made_up(db, first, [honest(0), honest(1)])
    play(db, second)
    assert "has 1 judged matches" in (urgent(db, second) or "")


def test_honest_bots_past_their_first_matches_wait(db: Database, tmp_path: Path) -> None:
    assert urgent(db, history(db, tmp_path, honest)) is None


def test_a_bot_that_leans_to_the_truth_in_later_games_is_urgent(
    db: Database, tmp_path: Path
) -> None:
    why = urgent(db, history(db, tmp_path, cheat)) or ""
    assert "leans to the truth in later games" in why and "bot version 1 " in why
