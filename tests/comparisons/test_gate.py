"""The regression gate, played for real: a new version meets the current one on the same
deals, same seats and opponents (house bots in bwrap-sandboxed processes beside it), and
the owner's policy decides what the verdict does to the ladder seat."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select

from arena.comparisons.advance import advance
from arena.comparisons.errors import ComparisonRefused
from arena.comparisons.gate import open_gates
from arena.comparisons.play import play_comparison
from arena.comparisons.promotion import make_current, set_promotion
from arena.comparisons.start import start_comparison
from arena.ratings.sprt import Bounds
from arena.runtime import Runtime
from arena.store import Bot, BotVersion, Database, Match
from arena.store.ladders import seated_versions
from arena.store.models import Comparison
from arena.tournaments.dispatch import PLACEMENT_PRIORITY, matches_to_send, sent_tournaments
from tests.ladders.test_ladder_run import open_pagat
from tests.services.conftest import sample_copy, valid_bot

FAST = Bounds(delta=0.5, cap=10)


def seated(db: Database) -> list[str]:
    with db.session(read_only=True) as s:
        return [v.ref for v in seated_versions(s)]


def two_versions(db: Database, runtime: Runtime, tmp: Path, old: str, new: str, policy: str):
    """Bot "gated" at 1.0 (sample bot ``old``), its policy set, then 2.0 (``new``)."""
    open_pagat(db, deals=1, games=4)
    first = valid_bot(db, runtime, sample_copy(tmp / "v1", "gated", old, "1.0"))
    set_promotion(db, "gated", policy, None)
    second = valid_bot(db, runtime, sample_copy(tmp / "v2", "gated", new, "2.0"))
    return first, second


def test_a_worse_version_is_found_worse_and_kept_out_under_if_not_worse(
    db: Database, runtime: Runtime, tmp_path: Path
) -> None:
    first, second = two_versions(db, runtime, tmp_path, "heuristic", "random", "if-not-worse")
    assert seated(db) == ["gated@1.0"]  # held back until its comparison says
    [comparison_id] = open_gates(db, runtime, FAST)
    assert open_gates(db, runtime, FAST) == []  # once per version

    row = play_comparison(db, runtime, comparison_id, workers=2)
    assert row.verdict == "worse", row.summary
    summary = row.summary or {}
    assert summary["delta"] + summary["half_width"] < 0, summary  # Δ ± interval below 0
    assert summary["pairs"] <= FAST.cap and not row.promoted
    assert seated(db) == ["gated@1.0"]
    with db.session(read_only=True) as s:
        matches = s.scalars(select(Match).where(Match.tournament_id == row.tournament_id)).all()
        pairs: dict[int, list[Match]] = {}
        for match in matches:
            pairs.setdefault(match.table_index // 2, []).append(match)
    for baseline, candidate in (sorted(p, key=lambda m: m.table_index) for p in pairs.values()):
        assert baseline.seed == candidate.seed  # the same deals
        swapped = [second.id if v == first.id else v for v in baseline.seats]
        assert candidate.seats == swapped  # same seats, same opponents, the version changed
        assert not {first.id, second.id} <= set(candidate.seats)  # never at one table

    # the owner rolls forward by hand all the same, then back
    assert "now current" in make_current(db, "gated@2.0", None)
    assert seated(db) == ["gated@2.0"]
    make_current(db, "gated@1.0", None)
    assert seated(db) == ["gated@1.0"]


def test_a_better_version_is_promoted_under_if_not_worse(
    db: Database, runtime: Runtime, tmp_path: Path
) -> None:
    two_versions(db, runtime, tmp_path, "random", "heuristic", "if-not-worse")
    [comparison_id] = open_gates(db, runtime, FAST)
    row = play_comparison(db, runtime, comparison_id, workers=2)
    assert row.verdict == "better" and row.promoted, row.summary
    assert seated(db) == ["gated@2.0"]
    with db.session(read_only=True) as s:
        left = s.scalars(select(Match.status).where(Match.tournament_id == row.tournament_id))
        assert "pending" not in set(left)  # what was scheduled ahead ends unplayed


def test_policy_now_seats_at_once_and_keep_never_by_itself(
    db: Database, runtime: Runtime, tmp_path: Path
) -> None:
    open_pagat(db, deals=1, games=4)
    valid_bot(db, runtime, sample_copy(tmp_path / "a1", "eager", "random", "1.0"))
    valid_bot(db, runtime, sample_copy(tmp_path / "a2", "eager", "random", "2.0"))
    assert seated(db) == ["eager@2.0"]  # "now", the default
    valid_bot(db, runtime, sample_copy(tmp_path / "b1", "careful", "random", "1.0"))
    set_promotion(db, "careful", "keep", None)
    valid_bot(db, runtime, sample_copy(tmp_path / "b2", "careful", "random", "2.0"))
    assert seated(db) == ["eager@2.0", "careful@1.0"]
    started = open_gates(db, runtime, FAST)
    assert len(started) == 2  # both compared, whatever the policy
    with db.session() as s:  # a verdict for "careful" changes nothing under "keep"
        for comparison in s.scalars(select(Comparison)):
            comparison.summary = None
    for comparison_id in started:
        with db.session() as s:
            row = s.get_one(Comparison, comparison_id)
            row.pairs_cap = 0  # the cap is spent: the next look ends it
        assert advance(db, comparison_id) is not None
    with db.session(read_only=True) as s:
        promoted = {c.candidate.ref: c.promoted for c in s.scalars(select(Comparison))}
        assert {c.verdict for c in s.scalars(select(Comparison))} == {"not separated"}
    assert promoted == {"eager@2.0": True, "careful@2.0": False}
    assert seated(db) == ["eager@2.0", "careful@1.0"]


def test_only_the_owner_chooses_and_only_valid_versions(
    db: Database, runtime: Runtime, tmp_path: Path
) -> None:
    valid_bot(db, runtime, sample_copy(tmp_path / "a1", "mine", "random", "1.0"))
    with db.session() as s:
        bot = s.scalar(select(Bot).where(Bot.name == "mine"))
        s.add(BotVersion(bot=bot, version="9", sha256="x" * 64, manifest={}, status="rejected"))
    with pytest.raises(ComparisonRefused, match="only the owner") as refused:
        make_current(db, "mine@1.0", user_id=12345)
    assert refused.value.status == 403
    with pytest.raises(ComparisonRefused, match="rejected"):
        make_current(db, "mine@9", None)
    with pytest.raises(ComparisonRefused, match="now, if-not-worse, keep"):
        set_promotion(db, "mine", "sometimes", None)
    with pytest.raises(ComparisonRefused, match="two versions of one bot"):
        start_comparison(db, runtime, "mine@1.0", "mine@1.0")


def test_a_comparisons_matches_are_sent_with_the_placements_and_by_the_recovery(
    db: Database, runtime: Runtime, tmp_path: Path
) -> None:
    """The owner waits for its verdict: its jobs go at the placements' priority, and the
    workers' recovery sends them though nobody follows the comparison."""
    two_versions(db, runtime, tmp_path, "random", "random", "keep")
    [comparison_id] = open_gates(db, runtime, FAST)
    with db.session(read_only=True) as s:
        tournament_id = s.get_one(Comparison, comparison_id).tournament_id
    assert tournament_id in sent_tournaments(db)
    jobs = matches_to_send(db, tournament_id)
    assert len(jobs) == 4 and {j.priority for j in jobs} == {PLACEMENT_PRIORITY}
