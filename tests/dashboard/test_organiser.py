"""An organiser creates a tournament from the web, starts it (the embedded backend: a run
process of its own that outlives the request) and stops it."""

from __future__ import annotations

import os
import time
from itertools import combinations
from math import comb

import pytest
from sqlalchemy import select

from arena.sandbox import SandboxPolicy
from arena.store import BotVersion, Match, Tournament, add_bot_version, create_user, progress
from arena.store.models import TournamentRun
from arena.tournaments.background import is_active
from tests.dashboard.users import PASSWORD, log_in, make_user, post_form
from tests.support import need_sandbox

ENTRANTS = ["alpha@1", "beta@1", "gamma@1", "house:heuristic"]


@pytest.fixture
def organiser(client, db):
    need_sandbox(SandboxPolicy.from_env())  # `arena tournament run` refuses without it
    make_user(db, "root", admin=True)
    log_in(client, "root")
    return client


def _create(client, **fields) -> int:
    data = {"bots": ENTRANTS, "name": "web cup", "games_per_match": "1", "deals": "1", **fields}
    answer = post_form(client, "/tournaments/new", data, page="/tournaments/new")
    assert answer.status_code == 302, answer.get_data(as_text=True)
    return int(answer.headers["Location"].rstrip("/").rpartition("/")[2])


def _wait(db, tournament_id: int, until, timeout_s: float = 90):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with db.session(read_only=True) as s:
            state = progress(s, tournament_id)
            run = s.get(TournamentRun, tournament_id)
            status = s.get(Tournament, tournament_id).status
        if until(state, status, run):
            return state, status, run
        time.sleep(0.2)
    pytest.fail(f"tournament {tournament_id}: still {state}, {status}")


def _gone(pid: int, timeout_s: float = 30) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    return False


def test_organiser_creates_and_starts_a_tournament_that_runs_to_the_end(organiser, db):
    refused = post_form(
        organiser, "/tournaments/new", {"bots": ["nosuchbot"]}, page="/tournaments/new"
    )
    assert refused.status_code == 400 and "no bot named" in refused.get_data(as_text=True)
    tid = _create(organiser, deals="2", games_per_match="2")
    with db.session(read_only=True) as s:
        t = s.get(Tournament, tid)
        assert (t.name, t.deals_per_game, t.games_per_match, t.status) == ("web cup", 2, 2, "draft")
    answer = post_form(organiser, f"/tournaments/{tid}/start", page=f"/tournaments/{tid}")
    assert answer.status_code == 303
    assert "started (embedded backend)" in organiser.get(f"/tournaments/{tid}").get_data(
        as_text=True
    )
    again = post_form(organiser, f"/tournaments/{tid}/start", page=f"/tournaments/{tid}")
    assert "running already" in organiser.get(again.headers["Location"]).get_data(as_text=True)
    state, _, run = _wait(db, tid, lambda st, status, run: status == "done")
    assert state["done"] == sum(state.values()) > 0
    assert _gone(run.pid) and not is_active(run)


def test_organiser_stops_a_run_and_starts_it_again(organiser, db):
    # Two matches of 4 games of 20 deals: seconds each, ample to be stopped mid-match, and
    # then played in full again (16 games, as before, made this the suite's slowest test).
    tid = _create(organiser, deals="20", games_per_match="4", tables="2")
    post_form(organiser, f"/tournaments/{tid}/start", page=f"/tournaments/{tid}")
    _, _, run = _wait(db, tid, lambda st, status, run: st["running"] > 0)
    answer = post_form(organiser, f"/tournaments/{tid}/stop", page=f"/tournaments/{tid}")
    assert answer.status_code == 303
    assert _gone(run.pid), "the run process did not end on stop"
    with db.session(read_only=True) as s:
        statuses = set(s.scalars(select(Match.status).where(Match.tournament_id == tid)))
        assert "running" not in statuses and "pending" in statuses  # given back, not lost
        assert s.get(Tournament, tid).status == "draft"
        assert s.get(TournamentRun, tid).stopped_at is not None
    page = organiser.get(f"/tournaments/{tid}").get_data(as_text=True)
    assert "stopped (embedded backend)" in page
    post_form(organiser, f"/tournaments/{tid}/stop", page=f"/tournaments/{tid}")
    assert "not running" in organiser.get(f"/tournaments/{tid}").get_data(as_text=True)

    post_form(organiser, f"/tournaments/{tid}/start", page=f"/tournaments/{tid}")
    state, _, run = _wait(db, tid, lambda st, status, run: status == "done", timeout_s=180)
    assert state["done"] == 2 and _gone(run.pid)


def test_a_finished_tournament_offers_no_stop_button(client, db, site):
    """A Celery run stays active until stopped: Stop shows while its tournament runs and
    goes once it is done (Start neither)."""
    make_user(db, "root", admin=True)
    log_in(client, "root")
    with db.session() as s:
        s.add(TournamentRun(tournament_id=site.tournament, backend="celery"))
        s.get(Tournament, site.tournament).status = "running"
    stop = 'value="stop">Stop</button>'
    running = client.get(f"/tournaments/{site.tournament}").get_data(as_text=True)
    assert stop in running and 'value="start"' not in running
    with db.session() as s:
        s.get(Tournament, site.tournament).status = "done"
    done = client.get(f"/tournaments/{site.tournament}").get_data(as_text=True)
    assert stop not in done and 'value="start"' not in done
    assert 'class="actions"' in done  # the organiser's controls, with no button in them


def _tournaments(db) -> list[tuple[str, str, int, int | None]]:
    with db.session(read_only=True) as s:
        rows = s.scalars(select(Tournament).order_by(Tournament.id))
        return [(t.name, t.rating_model, t.adaptive_matches, t.adaptive_top) for t in rows]


def test_the_form_offers_the_rating_model_and_extra_matches(client, db):
    make_user(db, "root", admin=True)
    log_in(client, "root")
    page = client.get("/tournaments/new").get_data(as_text=True)
    assert "<option selected>margin</option>" in page and "<option>bradley-terry</option>" in page
    assert 'name="extra_matches"' in page and 'name="top"' in page

    before = _tournaments(db)  # the fixture's own
    _create(client, name="default cup")
    _create(client, name="bt cup", rating_model="bradley-terry", extra_matches="6", top="3")
    assert _tournaments(db) == [
        *before,
        ("default cup", "margin", 0, None),
        ("bt cup", "bradley-terry", 6, 3),
    ]

    refusals = {
        "rating model must be one of bradley-terry, margin": {"rating_model": "elo"},
        "extra matches must be a whole number from 0 to 1000": {"extra_matches": "-1"},
        "top must be a whole number from 2 to 1000": {"extra_matches": "4", "top": "1"},
        "top places to separate need some extra matches": {"top": "3"},
    }
    for message, fields in refusals.items():
        data = {"bots": ENTRANTS, "name": "refused", **fields}
        answer = post_form(client, "/tournaments/new", data, page="/tournaments/new")
        assert answer.status_code == 400, fields
        assert message in answer.get_data(as_text=True), fields
    assert len(_tournaments(db)) == len(before) + 2  # a refused form stores nothing


def _owned_bots(db, site) -> dict[str, str]:
    """Real users' bots (stored valid, as a passed validation leaves them): ann and bob two
    each, carol one, and two versions of dave, a bot without an owner. Ref -> owner."""
    owners = {}
    with db.session() as s:
        users = {name: create_user(s, name, PASSWORD) for name in ("ann", "bob", "carol")}
        for name, user, version in [
            ("ann-a", "ann", "1"),
            ("ann-b", "ann", "1"),
            ("bob-a", "bob", "1"),
            ("bob-b", "bob", "1"),
            ("carol-a", "carol", "1"),
            ("dave", None, "1"),
            ("dave", None, "2"),
        ]:
            manifest = {"name": name, "version": version, "command": ["python3", "bot.py"]}
            archive = f"{name}@{version}".encode()
            owner = users.get(user)
            add_bot_version(s, site.runtime.blobs, archive, manifest, "valid", owner=owner)
            owners[f"{name}@{version}"] = user or "dave"
    return owners


def _stored_tables(db, tournament_id: int) -> list[list[str]]:
    with db.session(read_only=True) as s:
        refs = {v.id: v.ref for v in s.scalars(select(BotVersion))}
        seats = s.scalars(select(Match.seats).where(Match.tournament_id == tournament_id))
        return [[refs[v] for v in row] for row in seats]


def test_the_form_seats_no_two_bots_of_one_owner_unless_allowed(client, db, site):
    """End to end: bots of users of the accounts store, a tournament made from the organiser
    form, and the matches as stored."""
    owners = _owned_bots(db, site)
    make_user(db, "root", admin=True)
    log_in(client, "root")
    assert 'name="allow_same_owner"' in client.get("/tournaments/new").get_data(as_text=True)
    entrants = [*owners, "house:heuristic"]  # 8 bots: ann 2, bob 2, dave 2, carol, house

    def owner(ref: str) -> str:
        return owners.get(ref, ref)

    kept = _stored_tables(db, _create(client, bots=entrants, name="fair cup"))
    assert kept and all(len({owner(b) for b in table}) == 4 for table in kept)
    stored = [*owners, "house-heuristic"]  # a house bot's ref is its name
    legal = [c for c in combinations(stored, 4) if len({owner(b) for b in c}) == 4]
    assert sorted(map(sorted, kept)) == sorted(map(sorted, legal))  # every legal table once

    allowed = _create(client, bots=entrants, name="open cup", allow_same_owner="on")
    together = _stored_tables(db, allowed)
    assert len(together) == comb(8, 4)
    assert any(len({owner(b) for b in table}) < 4 for table in together)
    with db.session(read_only=True) as s:
        assert s.get(Tournament, allowed).allow_same_owner
        assert not s.get(Tournament, allowed - 1).allow_same_owner

    before = _tournaments(db)
    data = {"bots": ["ann-a@1", "ann-b@1", "bob-a@1", "bob-b@1"], "name": "refused"}
    answer = post_form(client, "/tournaments/new", data, page="/tournaments/new")
    assert answer.status_code == 400
    text = answer.get_data(as_text=True)
    assert "every table would seat two bots of one owner: user bob entered bob-a@1, bob-b@1" in text
    assert "Traceback" not in text and _tournaments(db) == before
