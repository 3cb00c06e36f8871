"""Choosing the mode: probe bwrap once per process, and warn loudly when falling back."""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path

from .policy import Mode, SandboxError, SandboxPolicy, SandboxUnavailable
from .request import _TOOL_PATH, _LaunchRequest, _tools
from .start import _start

logger = logging.getLogger(__package__)  # the package's one logger, named as before the split

_PROBE_TIMEOUT = 10.0

_detect_lock = threading.Lock()
_probe_results: dict[tuple[str, int], str | None] = {}
_downgrade_warned = False


def resolve_mode(policy: SandboxPolicy | None = None) -> Mode:
    """The mode :func:`launch` uses under ``policy`` (probes bwrap once per process).

    Never a silent downgrade: without a working bwrap, ``auto`` refuses; only an explicit
    ``rlimits`` mode (the operator's ``--unsafe-no-sandbox``) runs bots without it."""
    policy = SandboxPolicy.from_env() if policy is None else policy
    if policy.mode != "rlimits":
        problem = _bwrap_problem(policy)
        if problem is None:
            return "bwrap"
        raise SandboxUnavailable(
            f"the bwrap sandbox is unusable ({problem}): run `arena setup` (or install "
            "bubblewrap), or pass --unsafe-no-sandbox to run bots without isolation"
        )
    if policy.require_sandbox:
        raise SandboxUnavailable(
            "refusing to run bots without the bwrap sandbox (mode 'rlimits') because "
            "ARENA_REQUIRE_SANDBOX=1 is set"
        )
    _warn_downgrade()
    return "rlimits"


def _warn_downgrade() -> None:
    global _downgrade_warned
    with _detect_lock:
        if _downgrade_warned:
            return
        _downgrade_warned = True
    root = os.geteuid() == 0
    logger.warning(
        "SANDBOX DOWNGRADED on request (--unsafe-no-sandbox / ARENA_SANDBOX_MODE=rlimits): "
        "bots run WITHOUT bwrap isolation. Only rlimits%s apply: bots can use the network "
        "and read every file %s can read on this host. Results are marked unsandboxed.",
        " and a dedicated uid" if root else " (no process-count limit when not root)",
        "any user" if root else "the platform's user",
    )


def _reset_detection_cache() -> None:
    """Forget probe results and the once-per-process warning (for tests)."""
    global _downgrade_warned
    with _detect_lock:
        _probe_results.clear()
        _downgrade_warned = False


def _bwrap_problem(policy: SandboxPolicy) -> str | None:
    """None when bwrap works under ``policy``, else why not (cached per process)."""
    key = (policy.bwrap_path, os.geteuid())
    with _detect_lock:
        if key in _probe_results:
            return _probe_results[key]
    problem = _probe_bwrap(policy)
    with _detect_lock:
        _probe_results.setdefault(key, problem)
        return _probe_results[key]


def _probe_bwrap(policy: SandboxPolicy) -> str | None:
    if not os.path.isfile(policy.bwrap_path) or not os.access(policy.bwrap_path, os.X_OK):
        return f"{policy.bwrap_path} not found"
    try:
        _tools()
    except SandboxError as exc:
        return str(exc)
    true = shutil.which("true", path=_TOOL_PATH)
    if true is None:
        return "no `true` binary to probe with"
    try:
        with tempfile.TemporaryDirectory(prefix="arena-sandbox-probe-") as tmp:
            return _probe_run(policy, true, Path(tmp))
    except (OSError, SandboxError) as exc:
        return f"probe run failed: {exc}"


def _probe_run(policy: SandboxPolicy, true: str, root: Path) -> str | None:
    """Run ``true`` under bwrap in a scratch directory ``root``: None if it exits with 0."""
    os.chmod(root, 0o755)
    (root / "bot").mkdir(mode=0o755)
    log = root / "probe.log"
    request = _LaunchRequest([true], root / "bot", mode="bwrap", policy=policy, log_path=log)
    proc = _start(request)
    try:
        rc = proc.wait(timeout=_PROBE_TIMEOUT)
    except subprocess.TimeoutExpired:
        rc = None
    finally:
        proc.stop(grace=0)
    if rc == 0:
        return None
    output = log.read_text(errors="replace").strip()[:500] if log.exists() else ""
    return f"probe run exited with {rc}: {output or 'no output'}"
