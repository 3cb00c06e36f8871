"""The upload API through Flask: every documented answer of the token routes (201, 400, 401,
403, 404, 413, 429, 503) happens as documented, unknown and revoked tokens look the same,
and logs are the owner's only (others get 404)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from arena.sandbox import SandboxPolicy
from arena.store import revoke_token, set_bot_status
from arena.submissions import EmbeddedValidation, submission_status
from dashboard import create_app
from dashboard.api import SPEC
from dashboard.submitting import FORM_SLACK
from tests.dashboard.test_api import check, schema_of
from tests.services.conftest import MANIFEST, sample_copy
from tests.submissions.conftest import (
    assert_nothing_stored,
    stored_counts,
    with_settings,
    zip_of,
)

UPLOAD = "/api/v1/bots/{name}/versions"
DOCUMENTED = SPEC["paths"]["/api/v1/bots/{name}/versions"]["post"]
LOG_DOC = SPEC["paths"]["/api/v1/versions/{version_id}/log"]["get"]


@pytest.fixture
def make_client(db, store_runtime, recorder):
    def make(runtime=store_runtime, validator=recorder):
        app = create_app(db, runtime, TESTING=True)
        app.extensions["arena_validator"] = validator
        return app.test_client()

    return make


@pytest.fixture
def client(make_client):
    return make_client()


@pytest.fixture
def mine(tmp_path: Path) -> bytes:
    return zip_of(sample_copy(tmp_path / "mine", "mine"))


def post(client, token: str | None, data: bytes, name: str = "mine", filename="mine.zip"):
    headers = {"Content-Disposition": f'attachment; filename="{filename}"'}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    return client.post(
        UPLOAD.format(name=name), data=data, headers=headers, content_type="application/zip"
    )


def documented(reply, status: int, doc: dict = DOCUMENTED) -> dict:
    assert reply.status_code == status, reply.get_json()
    body = reply.get_json()
    check(body, schema_of(doc, str(status)), f"{status}")
    return body


def test_an_upload_is_stored_and_its_status_can_be_polled(client, alice, mine, recorder, db):
    reply = post(client, alice.token, mine)
    body = documented(reply, 201)
    assert body["status"] == "pending" and recorder.started == [body["id"]]
    assert reply.headers["Location"] == body["status_url"]
    assert body["status_url"].endswith(f"/api/v1/versions/{body['id']}")
    status = client.get(f"/api/v1/versions/{body['id']}").get_json()
    assert status == {
        "id": body["id"],
        "bot": "mine",
        "version": "1.0",
        "status": "pending",
        "reason": "",
        "has_log": False,
        "has_build_log": False,
    }
    assert submission_status(db, body["id"]).owner_id == alice.id


def test_a_multipart_form_upload_works_too(client, alice, mine, recorder):
    reply = client.post(
        UPLOAD.format(name="mine"),
        data={"file": (io.BytesIO(mine), "mine.zip")},
        headers={"Authorization": f"Bearer {alice.token}"},
        content_type="multipart/form-data",
    )
    assert documented(reply, 201)["id"] == recorder.started[0]
    missing = client.post(
        UPLOAD.format(name="mine"),
        data={"other": (io.BytesIO(mine), "mine.zip")},
        headers={"Authorization": f"Bearer {alice.token}"},
        content_type="multipart/form-data",
    )
    assert documented(missing, 400)["error"] == "send the zip in the form field 'file'"


def test_no_unknown_or_revoked_token_gets_in_and_they_look_the_same(
    client, alice, mine, db, store_runtime
):
    assert "Authorization" in documented(post(client, None, mine), 401)["error"]
    unknown = post(client, "not-a-token", mine)
    with db.session() as s:
        assert revoke_token(s, alice.token)
    revoked = post(client, alice.token, mine)
    assert documented(unknown, 401) == documented(revoked, 401)
    assert revoked.headers["WWW-Authenticate"] == "Bearer"
    assert_nothing_stored(db, store_runtime)
    revoked_log = client.get("/api/v1/versions/1/log", headers={"Authorization": "Bearer x"})
    documented(revoked_log, 401, LOG_DOC)


def test_another_users_bot_gets_no_version_from_you(client, alice, bob, tmp_path, db):
    documented(post(client, alice.token, zip_of(sample_copy(tmp_path / "a", "mine"))), 201)
    before = stored_counts(db)
    theirs = zip_of(sample_copy(tmp_path / "b", "mine", "random", "2.0"))
    body = documented(post(client, bob.token, theirs), 403)
    assert (
        body["error"]
        == "the bot name 'mine' belongs to another user; pick another name in bot.toml"
    )
    assert stored_counts(db) == before


def test_bad_archives_and_wrong_names_are_400_naming_the_file(client, alice, tmp_path, db):
    folder = sample_copy(tmp_path / "x", "mine")
    (folder / "bot.toml").write_text(MANIFEST.format(name="mine", version="1") + "x = 1\n")
    body = documented(post(client, alice.token, zip_of(folder), filename="my bot.zip"), 400)
    assert body["error"].startswith("my bot.zip: bot.toml: unknown keys x")
    other = zip_of(sample_copy(tmp_path / "y", "other"))
    body = documented(post(client, alice.token, other, name="mine"), 400)
    assert body["error"] == "mine.zip: its bot.toml names the bot 'other', not 'mine'"
    assert stored_counts(db)["bot_versions"] == 0


@pytest.mark.parametrize("over", [1, FORM_SLACK + 1])
def test_too_big_an_upload_is_413(make_client, store_runtime, alice, db, over):
    """Just over the cap (found while reading) and far over it (refused from the length)."""
    cap = 4096
    client = make_client(with_settings(store_runtime, max_upload=cap))
    body = documented(post(client, alice.token, bytes(cap + over), filename="big.zip"), 413)
    assert body["error"].startswith(f"big.zip: larger than the upload limit ({cap} bytes)")
    assert_nothing_stored(db, store_runtime)


def test_the_hourly_limit_is_429(make_client, store_runtime, alice, tmp_path):
    client = make_client(with_settings(store_runtime, submissions_per_hour=2))
    for version in ("1", "2"):
        data = zip_of(sample_copy(tmp_path / version, "mine", "random", version))
        documented(post(client, alice.token, data), 201)
    data = zip_of(sample_copy(tmp_path / "3", "mine", "random", "3"))
    body = documented(post(client, alice.token, data), 429)
    assert body["error"].startswith("2 uploads per hour is the limit")


def test_a_server_that_cannot_run_bots_says_so_with_503(
    make_client, store_runtime, alice, db, mine
):
    broken = SandboxPolicy(mode="bwrap", bwrap_path="/nonexistent/bwrap")
    runtime = type(store_runtime)(store_runtime.settings, store_runtime.limits, broken)
    client = make_client(runtime, EmbeddedValidation(db, runtime))
    body = documented(post(client, alice.token, mine), 503)
    assert body["error"].startswith("this server cannot run bots now")
    assert_nothing_stored(db, runtime)


def test_status_and_logs_of_unknown_versions_are_404(client, alice):
    assert client.get("/api/v1/versions/999").status_code == 404
    reply = client.get(
        "/api/v1/versions/999/log", headers={"Authorization": f"Bearer {alice.token}"}
    )
    assert documented(reply, 404, LOG_DOC)["error"] == "no bot version with id 999"


def test_the_validation_log_is_the_owners_only(client, alice, bob, mine, db):
    from arena.store import save_validation_log

    version_id = documented(post(client, alice.token, mine), 201)["id"]
    with db.session() as s:
        save_validation_log(s, version_id, "== mine#0 ==\nsecret strategy notes\n")
    assert client.get(f"/api/v1/versions/{version_id}").get_json()["has_log"] is True
    url = f"/api/v1/versions/{version_id}/log"
    own = documented(
        client.get(url, headers={"Authorization": f"Bearer {alice.token}"}), 200, LOG_DOC
    )
    assert own == {
        "id": version_id,
        "log": "== mine#0 ==\nsecret strategy notes\n",
        "build_log": "",  # it named no build
    }
    theirs = client.get(url, headers={"Authorization": f"Bearer {bob.token}"})
    # the same answer as for a version that does not exist: nothing leaks
    assert documented(theirs, 404, LOG_DOC)["error"] == f"no bot version with id {version_id}"
    documented(client.get(url), 401, LOG_DOC)


def test_every_documented_answer_of_the_token_routes_is_tested():
    """The tests above cover each status the document promises (keep them in step)."""
    assert set(DOCUMENTED["responses"]) == {"201", "400", "401", "403", "413", "429", "503"}
    assert set(LOG_DOC["responses"]) == {"200", "401", "404"}


def test_the_reply_says_what_becomes_of_the_ladder_seat(client, alice, mine, db, tmp_path):
    """A new version: the policy; an old version's files again: no rollback, and how to
    make it current (the contestant who re-uploaded 1.1.0 to undo 1.2.0 saw 201, valid)."""
    first = documented(post(client, alice.token, mine), 201)
    assert "once valid it takes the ladder seat" in first["seat"]
    with db.session() as s:
        set_bot_status(s, first["id"], "valid")
    newer = zip_of(sample_copy(tmp_path / "newer", "mine", version="2.0"))
    second = documented(post(client, alice.token, newer), 201)
    with db.session() as s:
        set_bot_status(s, second["id"], "valid")
    again = documented(post(client, alice.token, mine), 201)
    assert again["id"] == first["id"]
    assert "mine@1.0, stored before; the ladders seat 2.0" in again["seat"]
    assert "arena bot current mine@1.0" in again["seat"]
