"""Asking for an analysis: only the owner of the entrant's bot and organisers may (anybody
else gets the answer an unknown entrant gets, as for logs), only of a finished match, with
a sound number of samples, within the hour's quota (organisers without one); asking twice
for the same costs nothing and returns the first."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import update

from arena.analysis_runs import AnalysisRefused, request
from arena.store import Database, MatchAnalysis, StoreError
from arena.store.models import utcnow
from tests.analysis_runs.site import Played
from tests.support import both_databases


def refused(status: int, call) -> AnalysisRefused:
    with pytest.raises(AnalysisRefused) as caught:
        call()
    assert caught.value.status == status, caught.value
    return caught.value


def test_the_owner_and_organisers_may_ask_nobody_else(db: Database, played: Played):
    alice, bob, carol = (played.users[n] for n in ("alice", "bob", "carol"))
    m = played.match_id
    mine = request(db, m, 0, 64, alice)
    assert (mine.status, mine.entrant, mine.requested_by) == ("queued", 0, alice.id)
    assert request(db, m, 1, 64, bob).requested_by == bob.id
    assert request(db, m, 2, 64, carol).entrant == 2  # a house bot: organisers only
    assert request(db, m, 0, 64, None, seed=5).requested_by is None  # the operator
    not_hers = refused(404, lambda: request(db, m, 1, 64, alice))
    house = refused(404, lambda: request(db, m, 2, 64, alice))
    nowhere = refused(404, lambda: request(db, m, 7, 64, alice))
    # the same answer as for an entrant that is not there: nothing tells them apart
    assert str(not_hers).replace("entrant 1 ", "entrant 7 ") == str(nowhere)
    assert str(house).replace("entrant 2 ", "entrant 7 ") == str(nowhere)
    assert "owner and organisers" in str(nowhere)


def test_only_a_finished_match_with_sound_samples(db: Database, played: Played):
    carol = played.users["carol"]
    assert "has not finished" in str(refused(409, lambda: request(db, played.pending_id, 0)))
    for samples in (32, 100, 4096 + 32):
        message = str(refused(400, lambda n=samples: request(db, played.match_id, 0, n, carol)))
        assert "multiple of 32 from 64 to 4096" in message
    with pytest.raises(StoreError, match="no match with id 999"):
        request(db, 999, 0, 64, carol)


def test_asking_again_returns_the_first_and_sends_it_once(db: Database, played: Played):
    sent: list[int] = []
    alice = played.users["alice"]
    first = request(db, played.match_id, 0, 64, alice, dispatch=sent.append)
    again = request(db, played.match_id, 0, 64, alice, dispatch=sent.append)
    other = request(db, played.match_id, 0, 64, alice, seed=1, dispatch=sent.append)
    assert again.id == first.id != other.id
    assert sent == [first.id, other.id]


@both_databases
def test_the_hours_quota_answers_429_with_when_to_come_back(db: Database, played: Played):
    alice, carol = played.users["alice"], played.users["carol"]
    m = played.match_id
    for seed in range(3):
        request(db, m, 0, 64, alice, seed=seed, per_hour=3)
    over = refused(429, lambda: request(db, m, 0, 64, alice, seed=3, per_hour=3))
    assert "3 analyses per hour is the limit" in str(over)
    assert over.retry_after is not None and 3500 < over.retry_after <= 3600
    request(db, m, 0, 64, alice, seed=2, per_hour=3)  # one she has: no cost
    for seed in range(5):  # organisers have no limit
        request(db, m, 2, 64, carol, seed=seed, per_hour=3)
    with db.session() as s:  # the oldest request leaves the hour in ten minutes
        s.execute(
            update(MatchAnalysis)
            .where(MatchAnalysis.seed == 0, MatchAnalysis.entrant == 0)
            .values(requested_at=utcnow() - timedelta(minutes=50))
        )
    soon = refused(429, lambda: request(db, m, 0, 64, alice, seed=3, per_hour=3))
    assert soon.retry_after is not None and 590 < soon.retry_after <= 600
    assert "try again in 10 minute(s)" in str(soon)
