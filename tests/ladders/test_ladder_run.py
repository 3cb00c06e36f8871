"""``arena ladder run`` on the embedded default, as a real subprocess: a SQLite file, local
worker processes and a sample bot in the bwrap sandbox. Nobody creates a tournament: the run
tops the ladder up, plays its matches and ranks the bot, then stops where it was told to
(settled, or after N matches), every match recorded once.

The test opens the pagat ladder itself (as ``arena ladder open --rules pagat --deals 1``
would on a fresh database) with one-deal games, so that a match takes a second or two."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from sqlalchemy import func, select

from arena.ladders.entrants import open_ladder
from arena.readmodels.ladder import ladder_view
from arena.runtime import Runtime
from arena.store import Database, Match, list_tournaments
from arena.store.models import Ladder
from arena.tournaments.cache import CACHE
from arena.tournaments.spec import TournamentSpec
from tests.services.conftest import sample_copy, valid_bot
from tests.services.test_executor import assert_counted_once
from tests.submissions.live import platform_env
from tests.support import arena_command

NEVER_UNSURE = 1e6  # a settle width (Elo) every interval is within: placed by one match


@pytest.fixture(autouse=True)
def fresh_fits() -> None:
    """Forget the fits other tests cached: the cache is per process and keyed by tournament
    id and results version, which another test's database may share."""
    CACHE.clear()


def open_pagat(db: Database, deals: int, games: int, **settings: object) -> int:
    """Open the pagat ladder with short matches before anything else could open the default
    one; its tournament's id."""
    spec = TournamentSpec.from_options(rules="pagat", deals=deals, games_per_match=games)
    ladder_id = open_ladder(db, spec, **settings)
    with db.session(read_only=True) as s:
        return s.get_one(Ladder, ladder_id).tournament_id


def statuses(db: Database, tournament_id: int) -> dict[str, int]:
    query = (
        select(Match.status, func.count())
        .where(Match.tournament_id == tournament_id)
        .group_by(Match.status)
    )
    with db.session(read_only=True) as s:
        return dict(s.execute(query).all())


def ladder_run(db: Database, tmp_path: Path, *args: str) -> str:
    """``arena ladder run ARGS`` on the test's database; its output (it must succeed)."""
    result = subprocess.run(
        [*arena_command(), "ladder", "run", *args],
        env=platform_env(db, tmp_path / "cli-data"),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert result.returncode == 0, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr, result.stderr
    return result.stdout


def test_a_run_until_settled_places_and_ranks_a_sandboxed_bot(
    db: Database, runtime: Runtime, tmp_path: Path
) -> None:
    tid = open_pagat(db, deals=1, games=2, placement_matches=2, settle_half_width=NEVER_UNSURE)
    solo = valid_bot(db, runtime, sample_copy(tmp_path / "solo", "solo")).id

    out = ladder_run(db, tmp_path, "--until-settled", "--workers", "1")

    # its first match leaves it no longer provisional (its interval is within the width),
    # which ends its placement before the cap of 2 and settles the ladder
    assert "1 match played" in out, out
    assert "settled" in out, out  # `ladder show`'s headline, printed at the end
    assert statuses(db, tid) == {"done": 1}
    assert_counted_once(db, tid, games=2)
    with db.session(read_only=True) as s:
        view = ladder_view(s, "pagat")
        assert list_tournaments(s) == []  # no tournament was made for it
    assert view.state == "settled" and view.placing == []
    (entry,) = [e for e in view.ranked if e.bot_version_id == solo]
    assert entry.games == 2 and entry.matches == 1 and entry.rank is not None
    assert not entry.provisional
    assert {e.house for e in view.ranked} == {True, False}  # ranked among the anchors


def test_a_run_of_n_matches_plays_n_and_leaves_nothing_scheduled(
    db: Database, runtime: Runtime, tmp_path: Path
) -> None:
    """The default settle width: the ladder would go on; ``--matches 3`` stops it after
    three, on two local worker processes, with no match left claimed or queued."""
    tid = open_pagat(db, deals=1, games=1, placement_matches=2)
    valid_bot(db, runtime, sample_copy(tmp_path / "solo", "solo"))

    out = ladder_run(db, tmp_path, "--matches", "3", "--workers", "2")

    assert "3 matches played" in out, out
    assert statuses(db, tid) == {"done": 3}
    assert_counted_once(db, tid, games=1)
    with db.session(read_only=True) as s:
        view = ladder_view(s, "pagat")
    assert view.state == "playing" and view.done == 3 and view.in_flight == 0
    assert [e.bot for e in view.ranked if not e.house] == ["solo"]
