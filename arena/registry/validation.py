"""Judging a stored version: its build first, where its manifest names one (``arena.builds``;
a failed build rejects it), then its validation match: one game at a random seat of a table
of house bots, exactly as the first game of a tournament match would be played."""

from __future__ import annotations

import dataclasses
import secrets
import shutil
from pathlib import Path

from arena.bots.package import BotPackage
from arena.bots.process_player import ProcessPlayer
from arena.bots.runtimes import runtime_problem
from arena.builds import build_stored
from arena.house.master import cache as master_cache
from arena.house.names import house_player
from arena.players.player import Player
from arena.referee import Clock, MatchSpec, play_match, secret_seed
from arena.registry.archives import runnable
from arena.runtime import Runtime
from arena.sandbox import resolve_mode
from arena.store import (
    BotVersion,
    Database,
    StoreError,
    save_validation_log,
    set_bot_status,
)

MAX_VALIDATION_LOG = 64 * 1024  # stored per version
VALIDATION_OPPONENTS = ("random", "heuristic")  # quick house bots, as tournaments seat them
# The start-up allowance is not sent to bots: a slow first start (a cold cache) is spared.
VALIDATION_STARTUP_MS = 20_000


def validate_stored(db: Database, runtime: Runtime, version_id: int) -> BotVersion:
    """Judge a stored version that is still pending (on any machine: the archive comes from
    the database); a version already judged is returned as it is."""
    with db.session(read_only=True) as s:
        version = s.get(BotVersion, version_id)
        if version is None:
            raise StoreError(f"no bot version with id {version_id}")
        if version.status != "pending":
            return version
    package = runnable(db, runtime, version)
    if package.build and version.artifact_sha256 is None:
        if problem := runtime_problem(package.runtime):
            return _judged(db, version_id, "rejected", f"bot.toml: {problem}")
        build = build_stored(db, runtime, version_id, package)
        if not build.ok:
            return _judged(db, version_id, "rejected", f"build: {build.reason}")
        with db.session(read_only=True) as s:
            package = runnable(db, runtime, s.get_one(BotVersion, version_id))
    log_dir = runtime.log_dir("validation", f"{version_id}-{secrets.token_hex(4)}")
    try:
        reason = validation_problem(runtime, package, log_dir)
        log = validation_log_text(log_dir)
    finally:
        shutil.rmtree(log_dir, ignore_errors=True)
    status = "rejected" if reason else "valid"
    if resolve_mode(runtime.policy) == "rlimits":
        reason = f"{reason or 'valid'} (validated WITHOUT the sandbox: --unsafe-no-sandbox)"
    return _judged(db, version_id, status, reason or "", log)


def _judged(
    db: Database, version_id: int, status: str, reason: str, log: str | None = None
) -> BotVersion:
    with db.session() as s:
        if log is not None:
            save_validation_log(s, version_id, log)
        return set_bot_status(s, version_id, status, reason)


def validation_log_text(log_dir: Path) -> str | None:
    """What the bot wrote (the end of each log in ``log_dir``, under a header naming it)."""
    files = sorted(log_dir.glob("*.log")) if log_dir.is_dir() else []
    if not files:
        return None
    each = MAX_VALIDATION_LOG // len(files)
    return "".join(
        f"== {path.stem} ==\n{path.read_bytes()[-each:].decode(errors='replace')}\n"
        for path in files
    )


def validation_problem(
    runtime: Runtime, package: BotPackage, log_dir: Path | None = None
) -> str | None:
    """Play one game with the bot at a random seat of a table of house bots (under the rules
    its protocol implies: a Bhoos bot knows only the bhoos preset); the first fault, if any,
    is why it is rejected (or, before any game, a manifest ``runtime`` this machine does not
    have).

    What the bot receives is what the first game of a tournament match with the default
    settings sends: the same rules and deal count, the same clock, opponents it cannot tell
    from a tournament's. A bot that could tell its validation apart could behave there only.
    """
    if problem := runtime_problem(package.runtime):
        return f"bot.toml: {problem}"
    if master_cache.used_by(package.root):
        master_cache.ensure_built()  # built when the bot is registered, not at its start
    log_dir = log_dir or runtime.log_dir("validation", package.sha256[:12])
    bot = ProcessPlayer(
        package, package.name, limits=runtime.limits, policy=runtime.policy, log_dir=log_dir
    )
    seat = secrets.randbelow(4)
    houses = [secrets.choice(VALIDATION_OPPONENTS) for _ in range(3)]
    players: list[Player] = [
        house_player(kind, secrets.randbits(32), f"house-{kind}-{i + 1}")
        for i, kind in enumerate(houses)
    ]
    players.insert(seat, bot)
    spec = MatchSpec(
        f"validation-{package.sha256[:12]}",
        package.speaks.rules,
        seed=secret_seed(),
        games=1,
        clock=dataclasses.replace(Clock(), startup_ms=VALIDATION_STARTUP_MS),
    )
    result = play_match(spec, players)
    faults = [f for f in result.faults if f.entrant == seat]
    if not faults:
        return None
    return f"validation match: {faults[0].kind}: {faults[0].reason}"
