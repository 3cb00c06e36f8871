"""Unknown ids are 404s and bad query parameters 400s, as pages or as JSON under /api/."""

from __future__ import annotations

from flask import Flask, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from arena.store import StoreError
from arena.views.decision import DecisionNotFound


def register_errors(app: Flask) -> None:
    app.register_error_handler(StoreError, lambda exc: _error(404, str(exc)))
    app.register_error_handler(DecisionNotFound, lambda exc: _error(404, str(exc)))
    app.register_error_handler(ValueError, lambda exc: _error(400, str(exc)))
    app.register_error_handler(HTTPException, lambda exc: _error(exc.code, exc.description))


def _error(status: int, message: str):
    if request.path.startswith("/api/"):
        return jsonify({"error": message}), status
    return render_template("error.html", status=status, message=message), status
