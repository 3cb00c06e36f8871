"""Submitting bots from the browser's forms: a zip or one source
file becomes a version that is validated in the background (a real match in the sandbox);
another user cannot add to a bot they do not own; hostile and oversized uploads are refused
with the reason on the page and nothing stored."""

from __future__ import annotations

import io
import os
import time

import pytest
from sqlalchemy import func, select

from arena.sandbox import SandboxPolicy
from arena.store import Bot, BotArchive, BotLog, BotVersion, Submission
from dashboard import create_app
from tests.dashboard.users import csrf_of, log_in, make_user
from tests.services.conftest import SAMPLE_BOTS
from tests.submissions.conftest import with_settings, zip_of
from tests.submissions.test_archives import HOSTILE, build
from tests.support import need_sandbox

SOURCE = (SAMPLE_BOTS / "random" / "bot.py").read_bytes()


def upload(client, **files_and_fields):
    """POST the upload form as a browser does (multipart, with the page's CSRF token)."""
    data = {"csrf_token": csrf_of(client, "/bots/new")}
    for key, value in files_and_fields.items():
        data[key] = (io.BytesIO(value[1]), value[0]) if isinstance(value, tuple) else value
    return client.post("/bots/new", data=data, content_type="multipart/form-data")


def counts(db) -> dict[str, int]:
    with db.session(read_only=True) as s:
        return {
            m.__tablename__: s.scalar(select(func.count()).select_from(m))
            for m in (Bot, BotVersion, BotArchive, BotLog)
        }


def verdict(client, version_id: int, timeout_s: float = 120) -> dict:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        status = client.get(f"/api/v1/versions/{version_id}").get_json()
        if status["status"] != "pending":
            return status
        time.sleep(0.2)
    pytest.fail(f"version {version_id} still pending")


@pytest.fixture
def alice(client, db):
    make_user(db, "alice")
    make_user(db, "bob")
    log_in(client, "alice")
    return client


def test_the_upload_page_needs_a_log_in(client):
    answer = client.get("/bots/new")
    assert answer.status_code == 302 and "/login" in answer.headers["Location"]


def test_a_zip_and_a_single_file_become_valid_versions_on_the_bot_page(alice, db):
    need_sandbox(SandboxPolicy.from_env())
    answer = upload(alice, archive=("random.zip", zip_of(SAMPLE_BOTS / "random")))
    assert answer.status_code == 303, answer.get_data(as_text=True)
    page_url = answer.headers["Location"]
    version_id = int(page_url.rpartition("new=")[2])
    first = alice.get(page_url).get_data(as_text=True)
    assert f'id="version-{version_id}"' in first and "versions.js" in first
    assert "Submit a new version" in first and "Logs</a>" in first  # the owner's links

    single = upload(
        alice,
        source=("bot.py", SOURCE),
        name="solo",
        version="1",
        language="python",
        command="python3 bot.py",
    )
    assert single.status_code == 303, single.get_data(as_text=True)
    single_id = int(single.headers["Location"].rpartition("new=")[2])

    for vid in (version_id, single_id):
        status = verdict(alice, vid)
        assert status["status"] == "valid", status
    page = alice.get(page_url).get_data(as_text=True)
    assert "1.0.0" in page and 'data-field="status">valid' in page
    assert "data-status-url" not in page  # nothing left to poll
    with db.session(read_only=True) as s:
        owners = set(s.scalars(select(Bot.owner_id).where(Bot.name.in_(["random", "solo"]))))
        alice_id = s.scalar(select(Submission.user_id).where(Submission.bot_version_id == vid))
    assert owners == {alice_id}


def test_another_user_cannot_add_a_version_to_my_bot(alice, db, monkeypatch):
    validated = []
    monkeypatch.setattr(
        "dashboard.submitting.validator", lambda: lambda vid, manifest: validated.append(vid)
    )
    answer = upload(alice, archive=("random.zip", zip_of(SAMPLE_BOTS / "random")))
    assert answer.status_code == 303
    bot_page = answer.headers["Location"].partition("?")[0]
    before = counts(db)

    bob = alice.application.test_client()
    log_in(bob, "bob")
    assert "Submit a new version" not in bob.get(bot_page).get_data(as_text=True)
    manifest = b'name = "random"\nversion = "2.0"\ncommand = ["python3", "bot.py"]\n'
    attempts = [
        {"archive": ("mine.zip", build(("bot.toml", manifest), ("bot.py", SOURCE)))},
        {
            "source": ("bot.py", SOURCE),
            "name": "random",
            "version": "3",
            "command": "python3 bot.py",
        },
    ]
    for attempt in attempts:
        answer = upload(bob, **attempt)
        assert answer.status_code == 403
        assert "belongs to another user" in answer.get_data(as_text=True)
    assert counts(db) == before
    assert len(validated) == 1  # alice's only


@pytest.mark.parametrize(
    "case",
    [
        "zip slip",
        "absolute path",
        "symlink out",
        "zip bomb",
        "file count over the cap",
        "zip64 record hiding entries behind a small end record",
        "manifest over 64 KiB",
        "manifest nested 3000 deep",
        "manifest not UTF-8",
        "manifest with a number for a string",
    ],
)
def test_a_hostile_zip_is_refused_on_the_page_and_nothing_is_stored(alice, db, case):
    make, fragment = HOSTILE[case]
    before = counts(db)
    answer = upload(alice, archive=("evil.zip", make()))
    text = answer.get_data(as_text=True)
    assert answer.status_code == 400 and "evil.zip: " in text, text[-500:]
    assert fragment.replace("'", "&#39;") in text
    assert counts(db) == before


def test_an_upload_over_the_cap_is_refused_before_it_is_read(db, site):
    small = with_settings(site.runtime, max_upload=100_000)
    client = create_app(db, small, TESTING=True).test_client()
    make_user(db, "cat")
    log_in(client, "cat")
    before = counts(db)
    answer = upload(client, archive=("big.zip", bytes(300_000)))
    assert answer.status_code == 413
    assert "larger than the upload limit (100000 bytes)" in answer.get_data(as_text=True)
    # any form: the length alone refuses it, before the body (or its CSRF token) is read
    answer = client.post("/login", data={"name": "x" * 300_000})
    assert answer.status_code == 413
    assert counts(db) == before


def test_an_upload_past_the_storage_quota_is_refused_on_the_page(db, site, monkeypatch):
    """413 with what is used, the quota and what to do; nothing of it stored."""
    monkeypatch.setattr("dashboard.submitting.validator", lambda: lambda vid, manifest: None)
    small = with_settings(site.runtime, storage_quota=1 << 20)
    client = create_app(db, small, TESTING=True).test_client()
    make_user(db, "dan")
    log_in(client, "dan")
    weights = ("weights.bin", os.urandom(600_000))
    first = build(("bot.toml", b'name = "big"\nversion = "1"\ncommand = ["a"]\n'), weights)
    assert upload(client, archive=("big1.zip", first)).status_code == 303
    before = counts(db)
    second = build(("bot.toml", b'name = "big"\nversion = "2"\ncommand = ["a"]\n'), weights)
    answer = upload(client, archive=("big2.zip", second))
    text = answer.get_data(as_text=True)
    assert answer.status_code == 413, text[-500:]
    assert "storage quota: your bots&#39; archives take 0.6 MiB of your 1.0 MiB" in text
    assert "ask an organiser for a larger quota (ARENA_STORAGE_QUOTA)" in text
    assert counts(db) == before
