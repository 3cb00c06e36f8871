"""The one error type of the storage layer."""

from __future__ import annotations


class StoreError(ValueError):
    """A request the store refuses (unknown bot, duplicate version, ...), with a one-line reason
    meant for the user; callers print it instead of a traceback."""
