"""Unknown ids are 404s and bad query parameters 400s, as pages or as JSON under /api/;
refused submissions answer their own status (400/403/404/413/429/503)."""

from __future__ import annotations

from flask import Flask, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from arena.readmodels.decision import DecisionNotFound
from arena.store import StoreError
from arena.submissions import SubmissionError


def register_errors(app: Flask) -> None:
    app.register_error_handler(StoreError, lambda exc: _error(404, str(exc)))
    app.register_error_handler(DecisionNotFound, lambda exc: _error(404, str(exc)))
    app.register_error_handler(ValueError, lambda exc: _error(400, str(exc)))
    app.register_error_handler(SubmissionError, lambda exc: _error(exc.status, str(exc)))
    app.register_error_handler(HTTPException, _http_error)


def _http_error(exc: HTTPException):
    body, status = _error(exc.code, exc.description)
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else {}
    return body, status, headers


def _error(status: int | None, message: str | None):
    if request.path.startswith("/api/"):
        return jsonify({"error": message}), status
    return render_template("error.html", status=status, message=message), status
