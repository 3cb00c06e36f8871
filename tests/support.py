"""Shared test helpers."""

import os

import pytest


def need(ok: bool, reason: str) -> None:
    """Skip when a real service or tool is missing locally; fail instead under CI=true."""
    if ok:
        return
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"required in CI: {reason}")
    pytest.skip(reason)
