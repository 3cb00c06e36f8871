"""The decision lines of the audit from stored hindsights: trials keyed by the entrants' bot
versions (``first`` = game 0, ``seen`` = the bot version whose hand was added, "neither"
dropped), pairs of judged bots whatever their owners, and the evidence behind each line."""

from __future__ import annotations

from pathlib import Path

from arena.ratings.telling import Trial
from arena.store import BlobStore, Database, get_match
from arena.store.hindsights import documents, trials_of
from arena.tournaments.audit import Evidence, audit_report
from tests.analysis_runs.site import played_match
from tests.audits.site import store_made_up


def test_stored_hindsights_become_trials_lines_and_evidence(db: Database, tmp_path: Path):
    played = played_match(db, BlobStore(tmp_path / "blobs"))
    with db.session(read_only=True) as s:
        match = get_match(s, played.match_id)
        seats, tournament_id = list(match.seats), match.tournament_id
        waiting = audit_report(s, tournament_id)
    assert (waiting.judged.done, waiting.judged.waiting) == (0, 1)
    assert waiting.decisions == [] and waiting.decision_pairs == []
    store_made_up(db, played.match_id)
    alice, bob, house = seats[0], seats[1], seats[2]
    with db.session(read_only=True) as s:
        trials = trials_of(documents(s, [played.match_id]))
        report = audit_report(s, tournament_id)
    m = played.match_id
    assert trials == [
        Trial(m, alice, True, None, False),
        Trial(m, alice, False, None, True),
        Trial(m, alice, False, None, True),
        Trial(m, alice, False, bob, True),
        Trial(m, alice, True, house, False),
        Trial(m, bob, False, None, False),
        Trial(m, bob, True, alice, True),
    ]
    assert (report.judged.done, report.judged.waiting) == (1, 0)
    by_bots = {line.finding.bots: line for line in report.decisions}
    assert set(by_bots) == {(alice,), (bob,)}
    memory = by_bots[alice,]
    assert memory.refs == ("alice-bot@1",)
    counts = memory.finding.counts
    assert counts is not None
    assert (counts.hits, counts.trials, counts.base_hits, counts.base_trials) == (2, 2, 0, 1)
    assert memory.evidence == (
        Evidence(m, alice, 1, 0, 12, 112),
        Evidence(m, alice, 1, 0, 13, 113),
    )
    # every two judged bots that met (alice's and bob's: two owners); none with a house bot
    [pair] = report.decision_pairs
    assert pair.finding.bots == tuple(sorted((alice, bob)))
    assert pair.finding.kind == "decision pair"
    assert {e.step for e in pair.evidence} == {14, 21}
    assert report.lines[: len(report.decisions)] == report.decisions
