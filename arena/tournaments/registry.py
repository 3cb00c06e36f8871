"""Bots as the platform stores them: registering a package, house bots, and running either.

A bot version is a stored archive (content-addressed by sha256) plus its manifest. House
bots are versions too, with a ``house`` key in the manifest and no code, so schedules,
results and standings treat every seat the same way.
"""

from __future__ import annotations

import dataclasses
import secrets
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from arena.bots.house.names import house_player, parse_house
from arena.bots.limits import DEFAULT_LIMITS, Limits
from arena.bots.package import BotPackage, PackageError, load_package
from arena.bots.player import Player
from arena.bots.process_player import ProcessPlayer
from arena.bots.runtimes import runtime_problem
from arena.bots.sandbox import SandboxPolicy, resolve_mode
from arena.config import Settings
from arena.game import BHOOS, PAGAT
from arena.referee import Clock, MatchSpec, play_match, secret_seed
from arena.store import (
    BlobStore,
    BotVersion,
    Database,
    StoreError,
    add_bot_version,
    cached_archive,
    free_rejected_archives,
    pack_directory,
    save_validation_log,
    set_bot_status,
)

MAX_VALIDATION_LOG = 64 * 1024  # stored per version
VALIDATION_OPPONENTS = ("random", "heuristic")  # quick house bots, as tournaments seat them
# The start-up allowance is not sent to bots: a slow first start (a cold cache) is spared.
VALIDATION_STARTUP_MS = 20_000


@dataclass(frozen=True)
class Runtime:
    """Where bots live on this machine and how they are confined."""

    settings: Settings
    limits: Limits = DEFAULT_LIMITS
    policy: SandboxPolicy | None = None
    blobs: BlobStore = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "blobs", BlobStore.from_settings(self.settings))

    @property
    def unpack_dir(self) -> Path:
        return self.settings.data_dir / "bots"

    def log_dir(self, *parts: object) -> Path:
        return self.settings.data_dir.joinpath("logs", *map(str, parts))


def house_version(db: Database, runtime: Runtime, name: str) -> BotVersion:
    """The stored version standing for the house bot ``name`` (created on first use)."""
    house = parse_house(name)
    if house is None:
        raise PackageError(f"{name!r} is not a house bot name (e.g. house:heuristic)")
    manifest = {"name": house.stored_name, "version": "builtin", "house": house.kind}
    archive = f"house bot {house.stored_name}\n".encode()
    with db.session() as s:
        return add_bot_version(s, runtime.blobs, archive, manifest, "valid")


def archive_of(path: Path) -> bytes:
    """The bytes to store for a bot directory (a deterministic zip) or a zip file."""
    path = Path(path)
    if path.is_dir():
        return pack_directory(path)
    if not path.is_file():
        raise PackageError(f"{path}: no such bot directory or archive")
    return path.read_bytes()


def unpack(
    runtime: Runtime, archive: bytes, shown: str = "the bot's archive", manifest: dict | None = None
) -> BotPackage:
    """Check and unpack an archive the way the platform will run it; messages call it
    ``shown``. ``manifest``: the stored one (a stored version's ``bot.toml`` was parsed when
    it was registered, and is not parsed again)."""
    return _unpack_into(runtime.unpack_dir, archive, shown, manifest)


def inspect_archive(archive: bytes, shown: str) -> dict:
    """The manifest of an archive checked and unpacked as the platform will run it, in a
    folder removed again (a refused upload leaves nothing behind)."""
    with tempfile.TemporaryDirectory(prefix="arena-inspect-") as tmp:
        return _unpack_into(Path(tmp), archive, shown).manifest


def _unpack_into(
    folder: Path, archive: bytes, shown: str, manifest: dict | None = None
) -> BotPackage:
    with tempfile.TemporaryDirectory() as tmp:
        zip_path = Path(tmp) / "bot.zip"
        zip_path.write_bytes(archive)
        return load_package(zip_path, folder, shown=shown, manifest=manifest)


def register_bot(
    db: Database, runtime: Runtime, path: Path, *, validate: bool = True
) -> BotVersion:
    """Store a bot and judge it by its validation match, one game among house bots
    (``validate=False`` trusts it without one)."""
    if validate:
        resolve_mode(runtime.policy)  # no usable sandbox: refuse before storing anything
    archive = archive_of(path)
    if Path(path).is_dir():
        load_package(path)  # a folder's errors name its own files (mybot/bot.toml)
    manifest = unpack(runtime, archive, str(path)).manifest  # parsed here, once, and stored
    with db.session() as s:
        version = add_bot_version(s, runtime.blobs, archive, manifest)
    if version.status == "pending" and validate:
        return validate_stored(db, runtime, version.id)
    if version.status == "pending":
        with db.session() as s:
            version = set_bot_status(s, version.id, "valid")
    return version


def free_rejected(
    db: Database, runtime: Runtime, owner_id: int | None = None
) -> list[tuple[str, int]]:
    """Free the archives of rejected versions (``owner_id``'s, or everybody's) in the
    database and this machine's caches, keeping their rows, reasons and logs
    (``arena.store.storage``); each freed as (sha256, bytes)."""
    with db.session() as s:
        freed = free_rejected_archives(s, runtime.blobs, owner_id)
    for digest, _ in freed:
        shutil.rmtree(runtime.unpack_dir / digest, ignore_errors=True)
    return freed


def validate_stored(db: Database, runtime: Runtime, version_id: int) -> BotVersion:
    """Judge a stored version that is still pending (on any machine: the archive comes from
    the database); a version already judged is returned as it is."""
    with db.session(read_only=True) as s:
        version = s.get(BotVersion, version_id)
        if version is None:
            raise StoreError(f"no bot version with id {version_id}")
        if version.status != "pending":
            return version
        archive = cached_archive(s, runtime.blobs, version.sha256)
    package = unpack(runtime, archive, manifest=version.manifest)
    log_dir = runtime.log_dir("validation", f"{version_id}-{secrets.token_hex(4)}")
    try:
        reason = validation_problem(runtime, package, log_dir)
        log = validation_log_text(log_dir)
    finally:
        shutil.rmtree(log_dir, ignore_errors=True)
    status = "rejected" if reason else "valid"
    if resolve_mode(runtime.policy) == "rlimits":
        reason = f"{reason or 'valid'} (validated WITHOUT the sandbox: --unsafe-no-sandbox)"
    with db.session() as s:
        if log is not None:
            save_validation_log(s, version_id, log)
        return set_bot_status(s, version_id, status, reason or "")


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
        BHOOS if package.protocol == "bhoos-http" else PAGAT,
        seed=secret_seed(),
        games=1,
        clock=dataclasses.replace(Clock(), startup_ms=VALIDATION_STARTUP_MS),
    )
    result = play_match(spec, players)
    faults = [f for f in result.faults if f.entrant == seat]
    if not faults:
        return None
    return f"validation match: {faults[0].kind}: {faults[0].reason}"


def player_for(
    db: Database, runtime: Runtime, version: BotVersion, seed: int, log_dir: Path
) -> Player:
    """A Player running this stored version: in-process for house bots, sandboxed otherwise
    (its archive comes from this machine's cache, filled from the database)."""
    kind = version.manifest.get("house")
    if kind is not None:
        return house_player(kind, seed, version.bot.name)  # one name in every output
    with db.session(read_only=True) as s:
        archive = cached_archive(s, runtime.blobs, version.sha256)
    package = unpack(runtime, archive, manifest=version.manifest)
    return ProcessPlayer(
        package, version.ref, limits=runtime.limits, policy=runtime.policy, log_dir=log_dir
    )
