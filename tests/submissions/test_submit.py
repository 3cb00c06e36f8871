"""Submitting versions: ownership, the hourly limit (counted in the database, so it holds for
concurrent uploads through separate engines), single-file uploads, and the background
validation in this process with real bots in the bwrap sandbox. The races (simultaneous
uploads, two users taking one new name) run on SQLite and on Postgres."""

from __future__ import annotations

import tempfile
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import select

from arena.runtime import Runtime
from arena.sandbox import SandboxPolicy
from arena.store import Bot, BotVersion, Database, add_bot_version
from arena.submissions import (
    SubmissionError,
    run_validation,
    submission_status,
    submit_version,
    version_log,
)
from arena.submissions.validation import validation_pool
from tests.services.conftest import BAD_BOTS, sample_copy
from tests.submissions.conftest import (
    stored_counts,
    submissions,
    wait_verdict,
    with_settings,
    zip_of,
)
from tests.support import SAMPLE_BOTS, both_databases


def bot_zip(tmp_path: Path, name: str, version: str = "1.0", source: str | Path = "random"):
    folder = Path(tempfile.mkdtemp(dir=tmp_path)) / name
    return zip_of(sample_copy(folder, name, source, version))


def owner_of(db: Database, name: str) -> int | None:
    with db.session(read_only=True) as s:
        return s.scalar(select(Bot.owner_id).where(Bot.name == name))


# --------------------------------------------------------------------------- ownership


def test_a_new_name_makes_the_uploader_its_owner(db, store_runtime, alice, recorder, tmp_path):
    version_id = submit_version(
        db,
        store_runtime,
        alice.id,
        bot_zip(tmp_path, "mine"),
        filename="mine.zip",
        validate=recorder,
    )
    assert owner_of(db, "mine") == alice.id
    assert recorder.started == [version_id]
    status = submission_status(db, version_id)
    assert (status.bot, status.version, status.status, status.owner_id) == (
        "mine",
        "1.0",
        "pending",
        alice.id,
    )
    [row] = submissions(db)
    assert (row.user_id, row.bot_version_id, row.error, row.filename) == (
        alice.id,
        version_id,
        None,
        "mine.zip",
    )


def test_the_owner_adds_versions_and_nobody_else_can(
    db, store_runtime, alice, bob, recorder, tmp_path
):
    first = submit_version(
        db,
        store_runtime,
        alice.id,
        bot_zip(tmp_path, "mine"),
        filename="a.zip",
        validate=recorder,
    )
    second = submit_version(
        db,
        store_runtime,
        alice.id,
        bot_zip(tmp_path, "mine", "2.0"),
        filename="a2.zip",
        validate=recorder,
    )
    before = stored_counts(db)
    with pytest.raises(SubmissionError) as err:
        submit_version(
            db,
            store_runtime,
            bob.id,
            bot_zip(tmp_path, "mine", "3.0"),
            filename="b.zip",
            validate=recorder,
        )
    assert err.value.status == 403
    assert str(err.value) == (
        "the bot name 'mine' belongs to another user; pick another name in bot.toml"
    )
    assert stored_counts(db) == before
    assert recorder.started == [first, second]
    assert owner_of(db, "mine") == alice.id


def test_a_bot_the_organiser_registered_takes_no_uploads(
    db, store_runtime, alice, recorder, tmp_path
):
    data = bot_zip(tmp_path, "organisers-bot")
    with db.session() as s:  # as `arena bot add` stores it: no owner
        add_bot_version(s, store_runtime.blobs, b"other bytes", {"name": "organisers-bot"}, "valid")
    with pytest.raises(SubmissionError, match="belongs to the organiser") as err:
        submit_version(db, store_runtime, alice.id, data, filename="x.zip", validate=recorder)
    assert err.value.status == 403 and owner_of(db, "organisers-bot") is None


def test_the_url_name_must_match_the_manifest(db, store_runtime, alice, recorder, tmp_path):
    with pytest.raises(SubmissionError) as err:
        submit_version(
            db,
            store_runtime,
            alice.id,
            bot_zip(tmp_path, "mine"),
            filename="m.zip",
            name="yours",
            validate=recorder,
        )
    assert (err.value.status, str(err.value)) == (
        400,
        "m.zip: its bot.toml names the bot 'mine', not 'yours'",
    )
    assert stored_counts(db)["bot_versions"] == 0


def test_a_version_string_is_not_reused_for_other_files(
    db, store_runtime, alice, recorder, tmp_path
):
    submit_version(
        db,
        store_runtime,
        alice.id,
        bot_zip(tmp_path, "mine"),
        filename="a.zip",
        validate=recorder,
    )
    changed = sample_copy(tmp_path / "changed", "mine", "heuristic", "1.0")
    with pytest.raises(SubmissionError, match=r"mine@1\.0 already exists") as err:
        submit_version(
            db, store_runtime, alice.id, zip_of(changed), filename="b.zip", validate=recorder
        )
    assert err.value.status == 400 and stored_counts(db)["bot_versions"] == 1


def test_the_same_bytes_again_are_the_same_version(db, store_runtime, alice, recorder, tmp_path):
    data = bot_zip(tmp_path, "mine")
    first = submit_version(db, store_runtime, alice.id, data, filename="a.zip", validate=recorder)
    again = submit_version(db, store_runtime, alice.id, data, filename="a.zip", validate=recorder)
    assert first == again and stored_counts(db)["bot_versions"] == 1
    assert recorder.started == [first, first]  # still pending: validation is started again


# --------------------------------------------------------------------------- hourly limit


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


def test_the_hourly_limit_holds_and_frees_up_an_hour_later(
    db, store_runtime, alice, bob, recorder, tmp_path
):
    runtime = with_settings(store_runtime, submissions_per_hour=3)
    clock = Clock()

    def upload(user, version: str) -> int:
        data = bot_zip(tmp_path, f"bot-{user.name}", version)
        return submit_version(
            db, runtime, user.id, data, filename="b.zip", validate=recorder, clock=clock
        )

    upload(alice, "1")
    clock.now += timedelta(minutes=20)
    with pytest.raises(SubmissionError):  # a refused upload uses a slot too
        submit_version(
            db, runtime, alice.id, b"junk", filename="j.zip", validate=recorder, clock=clock
        )
    upload(alice, "2")
    clock.now += timedelta(minutes=39)
    with pytest.raises(SubmissionError) as err:
        upload(alice, "3")
    assert err.value.status == 429
    assert str(err.value) == "3 uploads per hour is the limit; try again in 1 minute(s)"
    assert upload(bob, "1")  # the limit is per user
    clock.now += timedelta(minutes=1, seconds=1)  # the first upload is now over an hour old
    upload(alice, "3")
    with pytest.raises(SubmissionError, match="per hour"):
        upload(alice, "4")
    assert len(recorder.started) == 4
    assert len(submissions(db)) == 5  # refused by the limit: no row at all


@both_databases
def test_the_limit_holds_for_simultaneous_uploads_from_separate_engines(
    db, store_runtime, alice, recorder, tmp_path
):
    """Eight uploads at once through eight engines (as eight web processes): exactly the
    limit of them get through."""
    limit, tries = 3, 8
    runtime = with_settings(store_runtime, submissions_per_hour=limit)
    payloads = [bot_zip(tmp_path, "racer", str(i)) for i in range(tries)]
    engines = [Database(db.url) for _ in range(tries)]
    outcomes: list[object] = []
    start = threading.Barrier(tries)

    def upload(i: int) -> None:
        start.wait()
        try:
            outcomes.append(
                submit_version(
                    engines[i],
                    runtime,
                    alice.id,
                    payloads[i],
                    filename=f"{i}.zip",
                    validate=recorder,
                )
            )
        except SubmissionError as exc:
            outcomes.append(exc.status)

    threads = [threading.Thread(target=upload, args=(i,)) for i in range(tries)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    for engine in engines:
        engine.dispose()
    assert sorted(o for o in outcomes if o == 429) == [429] * (tries - limit), outcomes
    assert len(recorder.started) == limit and len(submissions(db)) == limit


# --------------------------------------------------------------------------- validation


def test_a_good_upload_is_judged_valid_in_the_background(db, runtime, alice, tmp_path):
    """The upload returns at once, pending; the validation threads judge it afterwards."""
    busy = threading.Event()
    validation_pool().submit(("user", alice.id), busy.wait, 60)  # alice's turn is taken
    try:
        version_id = submit_version(
            db, runtime, alice.id, bot_zip(tmp_path, "goodbot"), filename="good.zip"
        )
        assert submission_status(db, version_id).status == "pending"
    finally:
        busy.set()
    assert wait_verdict(db, version_id) == "valid"
    status = submission_status(db, version_id)
    assert (status.reason, status.has_log) == ("", True)
    log, build_log = version_log(db, version_id, alice.id)
    assert (log.startswith("== goodbot ==\n"), build_log) == (
        True,
        "",
    )  # the bot's own log, under its name


def test_a_broken_upload_is_rejected_with_the_reason_and_its_log(db, runtime, alice, bob, tmp_path):
    data = zip_of(BAD_BOTS / "crash_at_start")
    version_id = submit_version(db, runtime, alice.id, data, filename="crash.zip")
    assert wait_verdict(db, version_id) == "rejected"
    status = submission_status(db, version_id)
    assert status.reason.startswith("validation match: start_failed"), status.reason
    log, _ = version_log(db, version_id, alice.id)
    assert log.count("crash-at-start: no model file here") == 1  # what it wrote, kept
    with pytest.raises(SubmissionError) as err:
        version_log(db, version_id, bob.id)
    assert err.value.status == 404  # as for a version that does not exist
    assert version_log(db, version_id, bob.id, admin=True)[0] == log  # organisers read it


def test_a_single_source_file_with_form_fields_becomes_a_bot(db, runtime, alice):
    source = (SAMPLE_BOTS / "random" / "bot.py").read_bytes()
    fields = {
        "name": "formbot",
        "version": "0.1",
        "language": "python",
        "command": "python3 bot.py",
    }
    version_id = submit_version(db, runtime, alice.id, source, filename="bot.py", fields=fields)
    assert wait_verdict(db, version_id) == "valid"
    with db.session(read_only=True) as s:
        row = s.get(BotVersion, version_id)
        assert row.manifest == {**fields, "command": ["python3", "bot.py"]}


@pytest.mark.parametrize(
    ("filename", "fields", "message"),
    [
        ("bot.py", {"name": "x", "version": "1"}, "command is required"),
        ("bot.py", {"name": "x y", "command": "python3 bot.py"}, "name must be"),
        ("bot.py", {"name": "x", "command": "python3 'bot.py"}, "cannot be split"),
        ("bot.toml", {"name": "x", "command": "python3 bot.py"}, "not bot.toml"),
        ("../../bot.py", {"name": "x", "command": "python3 bot.py"}, None),
        ("b o t.py", {"name": "x", "command": "python3 bot.py"}, "source file name"),
        ("bot.py", {"name": "x", "command": "python3 bot.py", "colour": "red"}, "colour"),
    ],
)
def test_bad_form_fields_are_refused(db, store_runtime, alice, recorder, filename, fields, message):
    source = b"print('hi')\n"
    if message is None:  # a path is cut to its last part: an ordinary upload of bot.py
        version_id = submit_version(
            db, store_runtime, alice.id, source, filename=filename, fields=fields, validate=recorder
        )
        assert recorder.started == [version_id]
        return
    with pytest.raises(SubmissionError, match=message) as err:
        submit_version(
            db, store_runtime, alice.id, source, filename=filename, fields=fields, validate=recorder
        )
    assert err.value.status == 400 and stored_counts(db)["bot_versions"] == 0


@both_databases
def test_two_users_racing_for_a_new_name_one_owns_it_the_other_is_refused(
    db, store_runtime, alice, bob, recorder, tmp_path
):
    users = [alice, bob] * 3
    payloads = [bot_zip(tmp_path, "contested", str(i)) for i in range(len(users))]
    engines = [Database(db.url) for _ in users]
    outcomes: dict[str, list[object]] = {"alice": [], "bob": []}
    start = threading.Barrier(len(users))

    def upload(i: int) -> None:
        start.wait()
        try:
            result: object = submit_version(
                engines[i],
                store_runtime,
                users[i].id,
                payloads[i],
                filename="c.zip",
                validate=recorder,
            )
        except SubmissionError as exc:
            result = exc.status
        outcomes[users[i].name].append(result)

    threads = [threading.Thread(target=upload, args=(i,)) for i in range(len(users))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    for engine in engines:
        engine.dispose()
    owner = owner_of(db, "contested")
    winner, loser = ("alice", "bob") if owner == alice.id else ("bob", "alice")
    assert outcomes[loser] == [403] * 3, outcomes
    assert len(outcomes[winner]) == 3 and 403 not in outcomes[winner], outcomes
    assert len(recorder.started) == 3 == stored_counts(db)["bot_versions"]


def test_a_validation_the_platform_cannot_run_stays_pending_with_the_reason(
    db, store_runtime, alice, recorder, tmp_path
):
    """Not the bot's fault: never rejected for it; uploading the same bytes starts it again."""
    data = bot_zip(tmp_path, "unlucky")
    version_id = submit_version(
        db, store_runtime, alice.id, data, filename="u.zip", validate=recorder
    )
    broken = SandboxPolicy(mode="bwrap", bwrap_path="/nonexistent/bwrap")
    no_sandbox = Runtime(store_runtime.settings, store_runtime.limits, broken)
    assert run_validation(db, no_sandbox, version_id) == "pending"
    status = submission_status(db, version_id)
    assert status.status == "pending"
    assert (
        status.reason.startswith("validation could not run (") and "/nonexistent" in status.reason
    )
    again = submit_version(db, store_runtime, alice.id, data, filename="u.zip", validate=recorder)
    assert again == version_id and recorder.started == [version_id, version_id]
