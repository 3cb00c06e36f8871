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


def need_sandbox(policy) -> None:
    """Skip (fail under CI=true) when the bwrap sandbox cannot run bots here."""
    from arena.bots.sandbox import SandboxUnavailable, resolve_mode

    try:
        resolve_mode(policy)
    except SandboxUnavailable as exc:
        need(False, f"bwrap sandbox unusable here: {exc}")
