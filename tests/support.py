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
    from arena.sandbox import SandboxUnavailable, resolve_mode

    try:
        resolve_mode(policy)
    except SandboxUnavailable as exc:
        need(False, f"bwrap sandbox unusable here: {exc}")


def need_cgroups(policy) -> None:
    """Skip (fail under CI=true) when bots get no memory and pids cgroup of their own here."""
    import os

    from arena.sandbox.cgroups import hierarchies

    found = os.geteuid() == 0 and hierarchies(policy) is not None
    need(found, "per-bot cgroups need root and a cgroup v1 or v2 fs with memory and pids")
