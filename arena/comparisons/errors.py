"""The one error a comparison or a choice of version raises at a user."""

from __future__ import annotations


class ComparisonRefused(ValueError):
    """Turned down, in one line for the user, with the HTTP status a view answers: 400 (not
    two valid versions of one bot, unfit opponents, an unknown policy), 403 (not the bot's
    owner) or 429 (one of the bot's comparisons asked for is still running)."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status
