"""What the submission views share: the app's database, bot runtime and validator, and one
call that stores an upload for the signed-in (or token) user."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import BinaryIO

from flask import Flask, current_app, request

from arena.config import Settings
from arena.runtime import Runtime
from arena.submissions import EmbeddedValidation, Validator, submit_version
from arena.submissions.sweep import sweep_periodically
from arena.submissions.upload import shown_name, too_big
from dashboard.db import database

FORM_SLACK = 64 * 1024  # multipart boundaries, headers and form fields around the file


def runtime() -> Runtime:
    """Where uploaded bots are validated when it happens in this process (``ARENA_DATA_DIR``;
    tests set ``app.extensions["arena_runtime"]``)."""
    if "arena_runtime" not in current_app.extensions:
        current_app.extensions["arena_runtime"] = Runtime(Settings.from_env())
    return current_app.extensions["arena_runtime"]


def validator() -> Validator:
    """Celery workers when ``ARENA_BROKER_URL`` is set, else this process's own thread."""
    if "arena_validator" not in current_app.extensions:
        embedded = EmbeddedValidation(database(), runtime())
        chosen: Validator = embedded
        if runtime().settings.broker_configured:
            from workers.client.validation import BrokerValidation  # only with a broker

            chosen = BrokerValidation(embedded)
        current_app.extensions["arena_validator"] = chosen
    return current_app.extensions["arena_validator"]


def sweep_lost_validations(app: Flask) -> None:
    """Restart, now and periodically, the validations a killed process or a lost broker job
    left pending (``ARENA_PENDING_TIMEOUT``)."""
    with app.app_context():
        timeout = timedelta(seconds=runtime().settings.validation_lost_s)
        sweep_periodically(database(), validator(), timeout)


def submit(
    user_id: int,
    upload: bytes | BinaryIO,
    *,
    filename: str,
    fields: Mapping[str, object] | None = None,
    name: str | None = None,
) -> int:
    """``submit_version`` with this app's database, runtime and validator."""
    return submit_version(
        database(),
        runtime(),
        user_id,
        upload,
        filename=filename,
        fields=fields,
        name=name,
        validate=validator(),
    )


def cap_request(filename: str) -> None:
    """Call before touching an upload request's body: a body whose length is over the upload
    cap is refused (413) unread, and werkzeug stops reading any body past it (a form parser
    would otherwise spool the whole of it to disk first)."""
    cap = runtime().settings.max_upload
    request.max_content_length = cap + FORM_SLACK
    if (request.content_length or 0) > cap + FORM_SLACK:
        raise too_big(shown_name(filename), cap)
