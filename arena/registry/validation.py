"""Judging a stored version: its build first, where its manifest names one (``arena.builds``;
a failed build rejects it), then its validation match: a whole match, the bot at a random
seat among house bots, as its first ladder match would be played (``validation_match``:
stored as any match, for its owner to diagnose). Its first fault rejects it."""

from __future__ import annotations

import secrets
import shutil
from pathlib import Path

from arena.bots.package import BotPackage
from arena.bots.process_player import ProcessPlayer
from arena.bots.runtimes import runtime_problem
from arena.builds import build_stored
from arena.house.master import cache as master_cache
from arena.house.names import house_name, house_player
from arena.players.player import Player
from arena.referee import MatchResult, play_match, secret_seed
from arena.registry.archives import runnable
from arena.registry.validation_match import (
    OPPONENTS,
    ValidationMatch,
    default_table,
    open_validation,
)
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
    if problem := runtime_problem(package.runtime):
        return _judged(db, version_id, "rejected", f"bot.toml: {problem}")
    if package.build and version.artifact_sha256 is None:
        build = build_stored(db, runtime, version_id, package)
        if not build.ok:
            return _judged(db, version_id, "rejected", f"build: {build.reason}")
        with db.session(read_only=True) as s:
            package = runnable(db, runtime, s.get_one(BotVersion, version_id))
    log_dir = runtime.log_dir("validation", f"{version_id}-{secrets.token_hex(4)}")
    try:
        match = open_validation(db, runtime, version_id, package)
        try:
            reason = validation_problem(runtime, package, log_dir, match)
        except BaseException as exc:
            match.abandon(f"the validation could not run: {type(exc).__name__}: {exc}")
            raise
        log = validation_log_text(package.name, match.bot_log(log_dir))
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


def validation_log_text(name: str, text: str | None) -> str | None:
    """What the bot wrote (the end of it) under a header naming it; None for no log."""
    return None if text is None else f"== {name} ==\n{text[-MAX_VALIDATION_LOG:]}\n"


def validation_problem(
    runtime: Runtime,
    package: BotPackage,
    log_dir: Path | None = None,
    match: ValidationMatch | None = None,
) -> str | None:
    """Play the validation match: ``match``, a stored version's (recorded once played), or
    else one drawn here, stored nowhere, among in-process house bots under the defaults of
    the bot's protocol (a Bhoos bot knows only the bhoos preset). The bot's first fault, if
    any, is why it is rejected (or, before any game, a manifest ``runtime`` this machine
    does not have).

    What the bot receives is what a ladder match sends: the same rules, deals and clock,
    opponents it cannot tell from a ladder table's, a fresh process each game. A bot that
    could tell its validation apart could behave there only.
    """
    if problem := runtime_problem(package.runtime):
        return f"bot.toml: {problem}"
    if master_cache.used_by(package.root):
        master_cache.ensure_built()  # built when the bot is registered, not at its start
    log_dir = log_dir or runtime.log_dir("validation", package.sha256[:12])
    if match is None:
        seat, result = _play_drawn(runtime, package, log_dir)
    else:
        seat, result = match.seat, match.play(runtime, log_dir)
    faults = [f for f in result.faults if f.entrant == seat]
    if not faults:
        return None
    return f"validation match: {faults[0].kind}: {faults[0].reason}"


def _play_drawn(runtime: Runtime, package: BotPackage, log_dir: Path) -> tuple[int, MatchResult]:
    """The bot's seat and the result of a validation match stored nowhere."""
    bot = ProcessPlayer(
        package, package.name, limits=runtime.limits, policy=runtime.policy, log_dir=log_dir
    )
    players: list[Player] = []
    for name in secrets.SystemRandom().sample(OPPONENTS, len(OPPONENTS)):
        house = house_name(name)
        players.append(house_player(house.kind, secrets.randbits(32), house.stored_name))
    seat = secrets.randbelow(len(players) + 1)
    players.insert(seat, bot)
    spec = default_table(package).spec(f"validation-{package.sha256[:12]}", secret_seed())
    return seat, play_match(spec, players)
