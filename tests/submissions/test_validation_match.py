"""The validation match is a whole match, stored as a ladder match is, and its owner's to
diagnose: a bot that crashes only in a later game (one game of validation never deals it
that hand) is rejected, and its owner (and organisers) step through the stored match to
the failing decision, export it and read the bot's log there, where anybody else gets the
404 of an unknown match. No public list, count or statistic has it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import func, select

from arena.cli import main
from arena.ladders.entrants import ANCHORS, open_ladder
from arena.ops.stats import read_stats
from arena.readmodels.export import ExportQuery, lines, plan
from arena.registry import free_rejected, register_bot, validate_stored
from arena.registry import validation as registry
from arena.registry.validation_match import OPPONENTS, STRIKES
from arena.sandbox import LOG_MARK
from arena.store import (
    BotLog,
    Database,
    GameScore,
    Match,
    MatchFault,
    MatchHindsight,
    Tournament,
    create_user,
    load_replay,
)
from arena.store import issue_token as new_token
from arena.store.validations import VALIDATION, validation_matches
from arena.tournaments.spec import TournamentSpec
from dashboard import create_app
from tests.referee.conftest import copy_bot_dir
from tests.services.conftest import SAMPLE_BOTS
from tests.submissions.conftest import Account, zip_of
from tests.support import HOSTILE_BOTS, both_databases

LATER_CRASH = "crashes_in_a_later_game"  # its first card of game 3, deal 2


@pytest.fixture
def client(db, store_runtime, recorder):
    app = create_app(db, store_runtime, TESTING=True)
    app.extensions["arena_validator"] = recorder  # validated below, in the test's thread
    return app.test_client()


@pytest.fixture
def organiser(db: Database) -> Account:
    with db.session() as s:
        user = create_user(s, "org", "a long password", admin=True)
        return Account(user.id, "org", new_token(s, user, "tests"))


def upload(client, account: Account, folder: Path, name: str) -> int:
    reply = client.post(
        f"/api/v1/bots/{name}/versions",
        data=zip_of(folder),
        headers={
            "Authorization": f"Bearer {account.token}",
            "Content-Disposition": f'attachment; filename="{name}.zip"',
        },
        content_type="application/zip",
    )
    assert reply.status_code == 201, reply.get_json()
    return reply.get_json()["id"]


def as_user(account: Account | None) -> dict[str, str]:
    return {} if account is None else {"Authorization": f"Bearer {account.token}"}


def validation_match(db: Database, version_id: int) -> Match:
    with db.session(read_only=True) as s:
        return s.get_one(Match, validation_matches(s, [version_id])[version_id])


def count(db: Database, model, *where) -> int:
    with db.session(read_only=True) as s:
        return s.scalar(select(func.count()).select_from(model).where(*where)) or 0


@both_databases
def test_a_crash_in_a_later_game_rejects_and_its_owner_alone_diagnoses_it(
    db, runtime, client, alice, bob, organiser, tmp_path
):
    bot_dir = copy_bot_dir(HOSTILE_BOTS / LATER_CRASH, tmp_path / "bots")
    version_id = upload(client, alice, bot_dir, "hostile-crashes-in-a-later-game")
    judged = validate_stored(db, runtime, version_id)
    assert judged.status == "rejected"
    assert judged.reason.startswith("validation match: crash: "), judged.reason

    # Stored as a ladder match is: done, every game scored, its faults, replay and log.
    match = validation_match(db, version_id)
    assert match.status == "done" and match.seats.index(version_id) in range(4)
    with db.session(read_only=True) as s:
        tournament = s.get_one(Tournament, match.tournament_id)
        record = load_replay(s, match.id)
        [first, *_] = s.scalars(
            select(MatchFault)
            .where(MatchFault.match_id == match.id, MatchFault.bot_version_id == version_id)
            .order_by(MatchFault.id)
        ).all()
        log = s.scalar(select(BotLog.text).where(BotLog.match_id == match.id))
    assert (tournament.kind, tournament.status, tournament.max_strikes) == (
        VALIDATION,
        "done",
        STRIKES,
    )
    assert (first.kind, first.game, first.deal) == ("crash", 2, 1)  # not the first game
    assert len(record["games"]) == tournament.games_per_match == 4
    assert count(db, GameScore, GameScore.match_id == match.id) == 4 * 4
    assert count(db, MatchHindsight) == 0  # no fair-play audit judges it
    assert "crashing in game 3, deal 2" in log and LOG_MARK in log
    assert f"decision {first.decision} " in log  # the marker of the failing decision

    page = f"/matches/{match.id}"
    decision = f"/api/v1/matches/{match.id}/games/3/decisions/{first.decision}"
    log_page = f"/bots/{judged.bot_id}/logs/1.0.0/matches/{match.id}"
    readable = [
        page,
        f"{page}/table",
        f"{page}/replay.json",
        f"{page}/games/3/decisions/{first.decision}.json",
        f"/api/v1/matches/{match.id}",
        f"/api/v1/matches/{match.id}/replay",
        decision,
        log_page,
    ]
    for reader in (alice, organiser):
        for url in readable:
            assert client.get(url, headers=as_user(reader)).status_code == 200, (reader, url)
    shown = client.get(page, headers=as_user(alice)).get_data(as_text=True)
    step = record["games"][2]["deals"][1]["decisions"]
    at = next(i for i, entry in enumerate(step) if entry.get("id") == first.decision) + 1
    assert 'id="diagnosis"' in shown and f'href="#g3-d2-s{at}"' in shown  # the failing step
    assert f"/games/3/decisions/{first.decision}.json" in shown  # its export
    assert f"{log_page}#g3-d2-s{at}" in shown  # the bot's log at its marker
    exported = client.get(decision, headers=as_user(alice)).get_json()
    assert exported["played"]["fault"] == "crash"
    assert f'id="g3-d2-s{at}"' in client.get(log_page, headers=as_user(alice)).get_data(True)
    bot_page = client.get(f"/bots/{judged.bot_id}", headers=as_user(alice)).get_data(True)
    assert f'href="/matches/{match.id}#diagnosis"' in bot_page  # the versions table's link

    # Anybody else: the 404 of a match that does not exist, on every view of it.
    unknown = client.get("/api/v1/matches/999999").get_json()
    for reader in (bob, None):
        for url in [*readable[:-1], f"{page}/progress", f"/api/v1/matches/{match.id}/analyses"]:
            reply = client.get(url, headers=as_user(reader))
            assert reply.status_code == 404, (reader, url)
        reply = client.get(f"/api/v1/matches/{match.id}", headers=as_user(reader))
        assert reply.get_json() == {"error": f"no match with id {match.id}"}
        assert client.get(log_page, headers=as_user(reader)).status_code == 404
        theirs = client.get(f"/bots/{judged.bot_id}", headers=as_user(reader)).get_data(True)
        assert "diagnose" not in theirs
    assert unknown == {"error": "no match with id 999999"}
    asked = client.post(
        f"/api/v1/matches/{match.id}/analyses", json={"entrant": 0}, headers=as_user(alice)
    )
    assert asked.status_code == 400  # the owner's: shown, not analysed

    # In no public list, page, count or statistic.
    listed = client.get("/api/v1/matches", headers=as_user(alice)).get_json()["matches"]
    assert match.id not in [row["id"] for row in listed]
    assert client.get("/api/v1/leaderboard").get_json()["rows"] == []  # every game: none
    assert client.get(f"/api/v1/leaderboard?tournament={match.tournament_id}").status_code == 404
    assert client.get(f"/tournaments/{match.tournament_id}").status_code == 404
    assert client.get(f"/api/v1/tournaments/{match.tournament_id}").status_code == 404
    bot = client.get(f"/api/v1/bots/{judged.bot_id}").get_json()
    assert bot["recent"] == [] and bot["faults"] == {} and bot["opponents"] == []
    with db.session(read_only=True) as s:
        exported_rows = list(lines(db, plan(s, ExportQuery())))
    assert exported_rows == []
    with db.engine.connect() as conn:
        stats = read_stats(conn)
    assert sum(stats.matches.values()) == 0 and stats.start_failures == 0

    # The operator reads it at the command line all the same.
    env = {"ARENA_DATABASE_URL": db.url.render_as_string(hide_password=False)}
    env["ARENA_DATA_DIR"] = str(runtime.settings.data_dir)
    shown_cli = CliRunner().invoke(main, ["replay", "show", str(match.id)], env=env)
    assert shown_cli.exit_code == 0 and "Game 3, deal 2" in shown_cli.output, shown_cli.output
    file = tmp_path / "decision.json"
    file.write_text(json.dumps(exported))
    again = CliRunner().invoke(
        main, ["replay", "decision", str(file), "--bot", str(bot_dir)], env=env
    )
    assert "crashing in game 3, deal 2" in again.output, again.output

    # Its archive is freed as any rejected version's (nothing plays the match again); the
    # match stays readable.
    assert [digest for digest, _ in free_rejected(db, runtime, alice.id)] == [judged.sha256]
    assert client.get(f"{page}/replay.json", headers=as_user(alice)).status_code == 200


def test_a_good_bot_validates_in_a_whole_match_of_its_first_ladder(db, runtime, client, alice):
    """Under the ladder's settings (a ladder of 3 deals a game, 2 games here), at least
    every decision a game asks, with the ladder's anchors; one match per version."""
    open_ladder(db, TournamentSpec.from_options(rules="pagat", deals=3, games_per_match=2))
    version_id = upload(client, alice, SAMPLE_BOTS / "random", "random")
    judged = validate_stored(db, runtime, version_id)
    assert (judged.status, judged.reason) == ("valid", "")
    match = validation_match(db, version_id)
    with db.session(read_only=True) as s:
        tournament = s.get_one(Tournament, match.tournament_id)
        record = load_replay(s, match.id)
        names = set(s.scalar(select(Match.seats).where(Match.id == match.id)))
    assert (tournament.deals_per_game, tournament.games_per_match) == (3, 2)
    assert [len(game["deals"]) for game in record["games"]] == [3, 3]
    seat = match.seats.index(version_id)
    asked = [
        entry
        for game in record["games"]
        for deal in game["deals"]
        for entry in deal["decisions"]
        if entry["seat"] == game["seats"].index(seat) and "id" in entry
    ]
    assert len(asked) == 2 * 3 * 14 and not record["faults"]  # a call and 13 cards a deal
    assert sorted(p for p in record["players"] if p.startswith("house-")) == sorted(
        ["house-heuristic", "house-random", "house-heuristic-2"]
    )
    assert len(names) == 4
    assert count(db, Tournament, Tournament.kind == VALIDATION) == 1


def test_the_opponents_are_the_ladders_anchors():
    """A validation table reads as a ladder table: the same house bots by the same names."""
    assert OPPONENTS == ANCHORS


@both_databases
def test_a_validation_that_could_not_run_is_ended_and_the_next_one_replaces_it(
    db, runtime, monkeypatch
):
    """Stopped mid-match (the platform's failure, not the bot's): its match ends failed and
    the version stays pending; judged again, it keeps one validation match, the new one."""

    def stopped(*_args):
        raise KeyboardInterrupt

    with monkeypatch.context() as patch:
        patch.setattr(registry, "validation_problem", stopped)
        with pytest.raises(KeyboardInterrupt):
            register_bot(db, runtime, SAMPLE_BOTS / "random")
    assert _validations(db) == [("done", "failed")]

    assert register_bot(db, runtime, SAMPLE_BOTS / "random").status == "valid"
    assert _validations(db) == [("done", "done")]


def _validations(db: Database) -> list[tuple[str, str]]:
    """(tournament status, match status) of every validation match."""
    with db.session(read_only=True) as s:
        query = (
            select(Tournament.status, Match.status)
            .join(Match, Match.tournament_id == Tournament.id)
            .where(Tournament.kind == VALIDATION)
        )
        return [(t, m) for t, m in s.execute(query)]
