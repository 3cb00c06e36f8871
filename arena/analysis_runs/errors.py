"""The one error a request for an analysis raises, with the HTTP status a view answers."""

from __future__ import annotations


class AnalysisRefused(ValueError):
    """A request turned down, in one line for the user: ``status`` 400 (bad samples), 404
    (no such match or entrant, or an entrant whose bot is not the user's: the answer the
    logs give, so nothing leaks), 409 (the match has not finished) or 429 (the hour's quota
    is used: ``retry_after`` seconds until a request is free again)."""

    def __init__(self, message: str, status: int = 400, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after
