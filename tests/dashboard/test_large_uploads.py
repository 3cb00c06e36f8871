"""Uploads over the limit against the served dashboard (``make_server``, real sockets): the
client reads a 413 with the reason (JSON from the API, a page for the form), never a reset,
whether the body declares its length or comes chunked; bodies under the limit still work.
A client that sends the whole body before reading (``http.client``, ``arena bot submit``)
is the hard case: the server answers, then reads and drops the rest of the body."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest

from arena.cli.api_client import ApiError, Client
from arena.config import DEFAULT_MAX_UPLOAD, Settings
from arena.runtime import Runtime
from dashboard import create_app
from dashboard.serve import Deadlines
from tests.dashboard.serving import serving
from tests.services.conftest import sample_copy
from tests.submissions.conftest import Recorder, account, stored_counts, zip_of

MIB = 1 << 20
TOO_BIG = 65 * MIB  # over ARENA_MAX_UPLOAD (64 MiB) and the form's slack around it
REASON = f"larger than the upload limit ({DEFAULT_MAX_UPLOAD} bytes)"


def served(db, tmp_path: Path, monkeypatch, limit: int, deadlines: Deadlines | None = None):
    """The dashboard on ``db`` with the upload limit ``limit`` (the server reads it from the
    environment, the app from its settings), validations only noted."""
    monkeypatch.setenv("ARENA_MAX_UPLOAD", str(limit))
    url = db.url.render_as_string(hide_password=False)
    app = create_app(db, Runtime(Settings(url, tmp_path / "data", "", max_upload=limit)))
    app.extensions["arena_validator"] = Recorder()
    return serving(app, deadlines)


@pytest.fixture
def port(db, tmp_path, monkeypatch) -> Iterator[int]:
    with served(db, tmp_path, monkeypatch, DEFAULT_MAX_UPLOAD) as port:
        yield port


@pytest.fixture
def token(db) -> str:
    return account(db, "alice").token


def post(port: int, path: str, body: bytes | Iterable[bytes], headers: dict) -> tuple:
    """POST as ``http.client`` does: the whole body first (chunked when it is an iterable),
    then the answer: its status, content type and body."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        conn.request("POST", path, body=body, headers=headers)
        reply = conn.getresponse()
        return reply.status, reply.getheader("Content-Type"), reply.read().decode()
    finally:
        conn.close()


def chunks(size: int) -> Iterator[bytes]:
    for _ in range(size // MIB):
        yield bytes(MIB)


def _api(token: str, name: str = "big") -> tuple[str, dict]:
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/zip"}
    headers["Content-Disposition"] = f'attachment; filename="{name}.zip"'
    return f"/api/v1/bots/{name}/versions", headers


@pytest.mark.parametrize("sent", ["declared", "chunked"])
def test_an_upload_over_the_limit_gets_the_apps_413_not_a_reset(db, port, token, sent):
    path, headers = _api(token)
    body = bytes(TOO_BIG) if sent == "declared" else chunks(TOO_BIG)
    status, kind, answer = post(port, path, body, headers)
    assert status == 413 and kind == "application/json", answer
    assert json.loads(answer) == {"error": f"big.zip: {REASON}; leave build outputs and data out"}
    assert stored_counts(db)["bot_versions"] == 0


@pytest.mark.parametrize("sent", ["declared", "chunked"])
def test_a_form_upload_over_the_limit_gets_a_413_page(port, sent):
    headers = {"Content-Type": "multipart/form-data; boundary=x"}
    body = bytes(TOO_BIG) if sent == "declared" else chunks(TOO_BIG)
    status, kind, answer = post(port, "/bots/new", body, headers)
    assert status == 413 and kind.startswith("text/html") and REASON in answer


def test_uploads_under_the_limit_are_taken_declared_or_chunked(db, port, token, tmp_path):
    for name, chunked in (("mine", False), ("yours", True)):
        data = zip_of(sample_copy(tmp_path / name, name))
        path, headers = _api(token, name)
        status, _, answer = post(port, path, iter([data]) if chunked else data, headers)
        assert status == 201, answer
    assert stored_counts(db)["bot_versions"] == 2


def test_arena_bot_submit_reads_the_reason_past_the_drained_amount_too(
    db, tmp_path, monkeypatch, token, capsys
):
    """A body far past what the server drains meets a closed connection: the client asks
    again with the headers alone and shows the server's reason all the same."""
    limit = 100_000
    reason = f"big.zip: larger than the upload limit ({limit} bytes)"
    for drain_bytes, posts in ((Deadlines().drain_bytes, 1), (MIB, 2)):
        deadlines = Deadlines(drain_bytes=drain_bytes)
        with served(db, tmp_path, monkeypatch, limit, deadlines) as port:
            client = Client(f"http://127.0.0.1:{port}", token)
            with pytest.raises(ApiError) as refused:
                client.upload("big", bytes(16 * MIB), "big.zip", report=lambda _: None)
        assert refused.value.status == 413 and reason in str(refused.value)
        log = capsys.readouterr().out
        assert log.count('"POST /api/v1/bots/big/versions" 413') == posts, log
