"""Unknown ids are 404s and bad query parameters 400s, as pages or as JSON under /api/;
refused submissions answer their own status (400/403/404/413/429/503); while the database
cannot be reached, everything that needs it is 503 with ``Retry-After``."""

from __future__ import annotations

from flask import Flask, jsonify, render_template, request
from sqlalchemy.exc import DBAPIError
from werkzeug.exceptions import HTTPException

from arena.comparisons.errors import ComparisonRefused
from arena.readmodels.decision import DecisionNotFound
from arena.store import StoreError
from arena.submissions import SubmissionError
from dashboard.auth import as_visitor
from dashboard.db import unreachable

RETRY_AFTER_S = 5
UNREACHABLE = "the database cannot be reached just now: try again in a few seconds"


def register_errors(app: Flask) -> None:
    app.register_error_handler(StoreError, lambda exc: _error(404, str(exc)))
    app.register_error_handler(DecisionNotFound, lambda exc: _error(404, str(exc)))
    app.register_error_handler(ValueError, lambda exc: _error(400, str(exc)))
    app.register_error_handler(SubmissionError, lambda exc: _error(exc.status, str(exc)))
    app.register_error_handler(ComparisonRefused, lambda exc: _error(exc.status, str(exc)))
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(DBAPIError, _database_error)


def _database_error(exc: DBAPIError):
    """503 while the database is away (any other database error is the app's: a 500)."""
    if not unreachable(exc):
        raise exc
    as_visitor()  # the page's header would ask the database who is asking
    body, status = _error(503, UNREACHABLE)
    return body, status, {"Retry-After": str(RETRY_AFTER_S)}


def _http_error(exc: HTTPException):
    body, status = _error(exc.code, exc.description)
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else {}
    return body, status, headers


def _error(status: int | None, message: str | None):
    if request.path.startswith("/api/"):
        return jsonify({"error": message}), status
    return render_template("error.html", status=status, message=message), status
