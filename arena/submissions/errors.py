"""The one error a submission raises, with the HTTP status a view should answer."""

from __future__ import annotations


class SubmissionError(ValueError):
    """A refused submission: a one-line reason meant for the contestant (it names their own
    file, never the platform's folders) and ``status``: 400 bad upload, 403 not yours,
    404 unknown version, 413 too big or over the storage quota, 429 too many this hour,
    503 cannot validate here."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status
