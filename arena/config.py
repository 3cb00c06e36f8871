"""Settings from ``ARENA_*`` environment variables; the defaults give the embedded mode.

The one place that reads them (the command line's own ``ARENA_SERVER``/``ARENA_TOKEN``/
``ARENA_PASSWORD`` aside, which belong to a client, not to the platform): every default is
written here once, and a bad value is refused with a one-line reason."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TypeVar
from urllib.parse import quote, urlsplit, urlunsplit

DEFAULT_BROKER = "redis://127.0.0.1:6379/0"
DEFAULT_MAX_UPLOAD = 64 * 1024 * 1024
DEFAULT_SUBMISSIONS_PER_HOUR = 20
DEFAULT_COMPARISON_PAIRS = 40  # a new version's comparison: at most 80 matches
DEFAULT_ANALYSES_PER_HOUR = 10  # match analyses per user (organisers: no limit)
# A build's packing and storing, then the validation match after it: at most 4 games of 70
# decisions at the default 1 s each plus a 10-s bank a game (320 s), and the start-ups.
BUILD_MARGIN_S = 420.0
DEFAULT_PENDING_TIMEOUT_S = 600.0  # a validation takes seconds (320 s at most): 10 min is lost
DEFAULT_STORAGE_QUOTA = 256 * 1024 * 1024  # four uploads at the cap, hundreds of usual bots
DEFAULT_LEASE_S = 60.0
DEFAULT_MAX_ATTEMPTS = 3
DEFAULT_AUDIT_SHARE = 0.5  # of a worker's play time its inline judging may take
# A bot's build at registration (arena.builds): wall seconds (each process's CPU seconds too),
# the sandbox's memory in MiB, MiB of files its folder may hold after and during the build.
DEFAULT_BUILD_SECONDS = 600
DEFAULT_BUILD_MEMORY_MB = 1536
DEFAULT_BUILD_OUTPUT_MB = 100
DEFAULT_LOGIN_LIMIT = (5, 20, 15 * 60)  # failures per account, per address, window (s)
DEFAULT_SIGNUPS_PER_HOUR = 10  # per address
DEFAULT_VISIBILITY_S = 2 * 3600  # Redis hands an unacknowledged job out again after this
# Host uids for bots when the platform runs as root (arena.sandbox.uids): the range, and the
# folder of lock files that hands each uid to one bot at a time (processes sharing the folder
# never share a uid; containers on one host must share it or get ranges of their own).
DEFAULT_UID_BASE = 50000
DEFAULT_UID_COUNT = 1000
DEFAULT_UID_LOCK_DIR = Path(tempfile.gettempdir()) / "arena-sandbox-uids"
MAX_UID = 2**32 - 2  # (uid_t)-1 means "no change" to the kernel
SANDBOX_MODES = ("auto", "bwrap", "rlimits")
_TRUTHY = {"1", "true", "yes", "on"}


@dataclass(frozen=True)
class Settings:
    """``database_url``: SQLAlchemy URL (default: ``arena.db`` in the working directory);
    ``data_dir``: this machine's cache of bot archives, unpacked bots and bot logs;
    ``broker_url``: Celery broker for the cluster mode;
    ``lease_s``: how long a worker may go silent before its match is handed to another;
    ``max_attempts``: claims of one match before it ends failed;
    ``audit_share``: the share of a worker's play time it may spend judging its own matches
    for the audit at once, the rest queued (``ARENA_AUDIT_SHARE``; 0: all queued);
    ``build_seconds``, ``build_memory_mb``, ``build_output_mb``: the limits of a bot's build
    (``ARENA_BUILD_SECONDS``, ``ARENA_BUILD_MEMORY_MB``, ``ARENA_BUILD_OUTPUT_MB``);
    ``broker_configured``: ``ARENA_BROKER_URL`` is set, so uploaded bots are validated by
    Celery workers (else in the web process's own background thread);
    ``validate_here``: a validation the broker cannot take is run in this process instead
    (``ARENA_VALIDATE_HERE``, default 1; 0, which needs a broker: it stays pending and is
    sent again by the next sweep, for a process that has no sandbox);
    ``max_upload``: bytes of one uploaded bot archive (``ARENA_MAX_UPLOAD``);
    ``submissions_per_hour``: uploads per user per hour (``ARENA_SUBMISSIONS_PER_HOUR``);
    ``comparison_pairs``: the pairs of matches a new version's comparison plays at most
    (``ARENA_COMPARISON_PAIRS``; ``arena.comparisons``);
    ``analyses_per_hour``: match analyses a user may ask for per hour
    (``ARENA_ANALYSES_PER_HOUR``; organisers have no limit);
    ``pending_timeout_s``: seconds after which a version still pending has lost its
    validation and a sweep starts it again (``ARENA_PENDING_TIMEOUT``);
    ``storage_quota``: bytes of archives each user's bots may take in the database
    (``ARENA_STORAGE_QUOTA``; what counts: ``arena.store.storage``);
    ``sandbox_mode``: auto, bwrap or rlimits (``ARENA_SANDBOX_MODE``; ``--unsafe-no-sandbox``
    sets rlimits); ``require_sandbox``: refuse rlimits (``ARENA_REQUIRE_SANDBOX``);
    ``bwrap_path``: bubblewrap (``ARENA_BWRAP``);
    ``login_limit``: failed log-ins per account, per address, and their window in seconds
    (``ARENA_LOGIN_LIMIT=5,20,900``); ``signups_per_hour``: per address
    (``ARENA_SIGNUP_LIMIT``); ``secret_key``: signs the dashboard's cookies
    (``ARENA_SECRET_KEY``, or the file ``ARENA_SECRET_KEY_FILE`` names, else one kept in
    the data directory); ``secure_cookies``: cookies
    only over HTTPS (``ARENA_SECURE_COOKIES=1``); ``visibility_timeout_s``: the Redis
    broker's visibility timeout (``ARENA_VISIBILITY_TIMEOUT``);
    ``database_configured``: ``ARENA_DATABASE_URL`` is set (an ``arena worker`` refuses to
    start otherwise); the passwords of both URLs may come from files instead
    (``ARENA_DATABASE_PASSWORD_FILE``, ``ARENA_BROKER_PASSWORD_FILE``: docker secrets);
    ``uid_base``, ``uid_count``, ``uid_lock_dir``: the sandbox's host uids and their lock
    files (``ARENA_SANDBOX_UID_BASE``, ``ARENA_SANDBOX_UID_COUNT``,
    ``ARENA_SANDBOX_UID_LOCK_DIR``)."""

    database_url: str
    data_dir: Path
    broker_url: str = DEFAULT_BROKER
    lease_s: float = DEFAULT_LEASE_S
    max_attempts: int = DEFAULT_MAX_ATTEMPTS
    audit_share: float = DEFAULT_AUDIT_SHARE
    build_seconds: int = DEFAULT_BUILD_SECONDS
    build_memory_mb: int = DEFAULT_BUILD_MEMORY_MB
    build_output_mb: int = DEFAULT_BUILD_OUTPUT_MB
    broker_configured: bool = False
    validate_here: bool = True
    max_upload: int = DEFAULT_MAX_UPLOAD
    submissions_per_hour: int = DEFAULT_SUBMISSIONS_PER_HOUR
    comparison_pairs: int = DEFAULT_COMPARISON_PAIRS
    analyses_per_hour: int = DEFAULT_ANALYSES_PER_HOUR
    pending_timeout_s: float = DEFAULT_PENDING_TIMEOUT_S
    storage_quota: int = DEFAULT_STORAGE_QUOTA
    sandbox_mode: str = "auto"
    require_sandbox: bool = False
    bwrap_path: str = "/usr/bin/bwrap"
    login_limit: tuple[int, int, int] = DEFAULT_LOGIN_LIMIT
    signups_per_hour: int = DEFAULT_SIGNUPS_PER_HOUR
    secret_key: str | None = None
    secure_cookies: bool = False
    visibility_timeout_s: int = DEFAULT_VISIBILITY_S
    database_configured: bool = False
    uid_base: int = DEFAULT_UID_BASE
    uid_count: int = DEFAULT_UID_COUNT
    uid_lock_dir: Path = DEFAULT_UID_LOCK_DIR

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> Settings:
        env = os.environ if environ is None else environ
        uid_base, uid_count = _uid_range(env)
        login = _numbers(
            env, "ARENA_LOGIN_LIMIT", "ACCOUNT,ADDRESS,WINDOW_SECONDS", DEFAULT_LOGIN_LIMIT
        )
        return cls(
            database_url=_with_password(
                env, env.get("ARENA_DATABASE_URL", "sqlite:///arena.db"), "ARENA_DATABASE"
            ),
            data_dir=Path(env.get("ARENA_DATA_DIR", "arena-data")),
            broker_url=_with_password(
                env, env.get("ARENA_BROKER_URL", DEFAULT_BROKER), "ARENA_BROKER"
            ),
            lease_s=_number(env, "ARENA_LEASE_SECONDS", float, DEFAULT_LEASE_S, minimum=1),
            max_attempts=_number(env, "ARENA_MAX_ATTEMPTS", int, DEFAULT_MAX_ATTEMPTS, minimum=1),
            audit_share=_number(env, "ARENA_AUDIT_SHARE", float, DEFAULT_AUDIT_SHARE, minimum=0.0),
            build_seconds=_number(
                env, "ARENA_BUILD_SECONDS", int, DEFAULT_BUILD_SECONDS, minimum=1
            ),
            build_memory_mb=_number(
                env, "ARENA_BUILD_MEMORY_MB", int, DEFAULT_BUILD_MEMORY_MB, minimum=64
            ),
            build_output_mb=_number(
                env, "ARENA_BUILD_OUTPUT_MB", int, DEFAULT_BUILD_OUTPUT_MB, minimum=1
            ),
            broker_configured=bool(env.get("ARENA_BROKER_URL")),
            validate_here=_validate_here(env),
            max_upload=_number(env, "ARENA_MAX_UPLOAD", int, DEFAULT_MAX_UPLOAD, minimum=1),
            submissions_per_hour=_number(
                env, "ARENA_SUBMISSIONS_PER_HOUR", int, DEFAULT_SUBMISSIONS_PER_HOUR, minimum=1
            ),
            comparison_pairs=_number(
                env, "ARENA_COMPARISON_PAIRS", int, DEFAULT_COMPARISON_PAIRS, minimum=1
            ),
            analyses_per_hour=_number(
                env, "ARENA_ANALYSES_PER_HOUR", int, DEFAULT_ANALYSES_PER_HOUR, minimum=1
            ),
            pending_timeout_s=_number(
                env, "ARENA_PENDING_TIMEOUT", float, DEFAULT_PENDING_TIMEOUT_S, minimum=1
            ),
            storage_quota=_number(
                env, "ARENA_STORAGE_QUOTA", int, DEFAULT_STORAGE_QUOTA, minimum=1
            ),
            sandbox_mode=_sandbox_mode(env),
            require_sandbox=env.get("ARENA_REQUIRE_SANDBOX", "").strip().lower() in _TRUTHY,
            bwrap_path=env.get("ARENA_BWRAP", "").strip() or "/usr/bin/bwrap",
            login_limit=(login[0], login[1], login[2]),  # as many as the default has
            signups_per_hour=_numbers(
                env, "ARENA_SIGNUP_LIMIT", "SIGNUPS_PER_HOUR", (DEFAULT_SIGNUPS_PER_HOUR,)
            )[0],
            secret_key=_secret_key(env),
            secure_cookies=env.get("ARENA_SECURE_COOKIES") == "1",
            visibility_timeout_s=_number(
                env, "ARENA_VISIBILITY_TIMEOUT", int, DEFAULT_VISIBILITY_S, minimum=1
            ),
            database_configured=bool(env.get("ARENA_DATABASE_URL")),
            uid_base=uid_base,
            uid_count=uid_count,
            uid_lock_dir=Path(env.get("ARENA_SANDBOX_UID_LOCK_DIR") or DEFAULT_UID_LOCK_DIR),
        )

    @property
    def validation_lost_s(self) -> float:
        """Seconds after which a pending version's validation is lost: the pending timeout,
        or longer where a build may take its whole time before the match is played."""
        return max(self.pending_timeout_s, self.build_seconds + BUILD_MARGIN_S)

    def without_sandbox(self) -> Settings:
        """These settings under ``--unsafe-no-sandbox`` (bots confined by rlimits only)."""
        return replace(self, sandbox_mode="rlimits")

    def environment(self) -> dict[str, str]:
        """What a child process (a detached run) needs to read the same settings back."""
        return {
            "ARENA_DATABASE_URL": self.database_url,
            "ARENA_DATA_DIR": str(Path(self.data_dir).resolve()),
            "ARENA_SANDBOX_MODE": self.sandbox_mode,
        }


_N = TypeVar("_N", int, float)


def _number(env: Mapping[str, str], name: str, kind: type[_N], default: _N, minimum: _N) -> _N:
    """A numeric setting; a bad value is refused with a one-line reason, never ignored."""
    text = env.get(name)
    if text is None:
        return default
    value: _N | None
    try:
        value = kind(text)
    except ValueError:
        value = None
    if value is None or not value >= minimum:
        raise ValueError(f"{name}={text!r}: expected a {kind.__name__} of at least {minimum}")
    return value


def _validate_here(env: Mapping[str, str]) -> bool:
    """``ARENA_VALIDATE_HERE``: off only where a broker takes the validations instead."""
    text = env.get("ARENA_VALIDATE_HERE", "").strip().lower()
    if text in ("", *_TRUTHY):
        return True
    if text not in ("0", "false", "no", "off"):
        raise ValueError(f"ARENA_VALIDATE_HERE={text!r}: expected 1 or 0")
    if not env.get("ARENA_BROKER_URL"):
        raise ValueError(
            "ARENA_VALIDATE_HERE=0 needs ARENA_BROKER_URL: nothing else would validate"
        )
    return False


def _numbers(env, name: str, form: str, default: tuple[int, ...]) -> tuple[int, ...]:
    """As many whole numbers, comma-separated, as ``default`` holds."""
    text = env.get(name)
    if not text:
        return default
    try:
        numbers = tuple(int(part) for part in text.split(","))
    except ValueError:
        numbers = ()
    if len(numbers) != len(default) or min(numbers) < 1:
        raise ValueError(f"{name}={text!r}: expected {form}, whole numbers of at least 1")
    return numbers


def _with_password(env, url: str, prefix: str) -> str:
    """``url`` with the password read from the file ``{prefix}_PASSWORD_FILE`` names, when
    set (a docker secret: the password is in no environment and no compose file). The file's
    one line is the password as is; the URL gets it percent-encoded."""
    name = f"{prefix}_PASSWORD_FILE"
    path = env.get(name)
    if not path:
        return url
    try:
        password = Path(path).read_text().rstrip("\r\n")
    except OSError as exc:
        raise ValueError(f"{name}={path!r}: cannot read it ({exc.strerror})") from None
    parts = urlsplit(url)
    if not password or not parts.hostname:
        what = "is empty" if not password else f"cannot go into {prefix}_URL (no host in it)"
        raise ValueError(f"{name}={path!r}: the password {what}")
    userinfo, _, where = parts.netloc.rpartition("@")
    user = userinfo.split(":", 1)[0]
    return urlunsplit(parts._replace(netloc=f"{user}:{quote(password, safe='')}@{where}"))


def _uid_range(env) -> tuple[int, int]:
    base = int(_number(env, "ARENA_SANDBOX_UID_BASE", int, DEFAULT_UID_BASE, minimum=1))
    count = int(_number(env, "ARENA_SANDBOX_UID_COUNT", int, DEFAULT_UID_COUNT, minimum=1))
    if base + count - 1 > MAX_UID:
        raise ValueError(
            f"ARENA_SANDBOX_UID_BASE={base} and ARENA_SANDBOX_UID_COUNT={count}: "
            f"the last uid must be at most {MAX_UID}"
        )
    return base, count


def _sandbox_mode(env) -> str:
    mode = env.get("ARENA_SANDBOX_MODE", "").strip().lower() or "auto"
    if mode not in SANDBOX_MODES:
        raise ValueError(f"ARENA_SANDBOX_MODE={mode!r}: expected one of {', '.join(SANDBOX_MODES)}")
    return mode


def _secret_key(env) -> str | None:
    key = env.get("ARENA_SECRET_KEY") or None
    path = env.get("ARENA_SECRET_KEY_FILE")
    if key is None and path:  # a docker secret: the key is in no environment
        try:
            key = Path(path).read_text().strip() or None
        except OSError as exc:
            message = f"ARENA_SECRET_KEY_FILE={path!r}: cannot read it ({exc.strerror})"
            raise ValueError(message) from None
    if key is not None and len(key) < 16:
        raise ValueError("ARENA_SECRET_KEY must have at least 16 characters")
    return key
