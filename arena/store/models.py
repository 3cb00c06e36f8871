"""Tables of the platform as typed SQLAlchemy 2 models.

Only portable column types (JSON, LargeBinary, BigInteger, short strings with CHECK
constraints instead of native enums) so one schema and one migration serve SQLite and
Postgres. Constraint names come from a naming convention, so migrations can refer to them.
Timestamps are timezone-aware in Python; SQLite hands them back naive (in UTC).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, ClassVar

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

from arena.referee.match import DEFAULT_MAX_STRIKES

NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

BOT_STATUSES = ("pending", "valid", "rejected")
TOURNAMENT_STATUSES = ("draft", "running", "done")
# A ladder's matches live in a tournament row of kind "ladder" (arena.ladders), so leases,
# recovery, results, replays and logs serve it unchanged; it never ends. So do a
# comparison's (arena.comparisons), an owner's unrated challenge and a validation match.
TOURNAMENT_KINDS = ("tournament", "ladder", "comparison", "challenge", "validation")
RATED_KINDS = ("tournament", "ladder")  # the others' matches change no rating
MATCH_STATUSES = ("pending", "running", "done", "failed")
ANALYSIS_STATUSES = ("queued", "running", "done", "failed")
# What a bot's owner lets a newly validated version do (``arena.comparisons.policy``): take
# the ladder seat at once, take it only if its comparison with the current one does not
# find it worse, or wait for the owner to make it current.
PROMOTIONS = ("now", "if-not-worse", "keep")
COMPARISON_STATUSES = ("running", "done")
VERDICTS = ("better", "worse", "not separated")


def utcnow() -> datetime:
    return datetime.now(UTC)


def as_utc(moment: datetime) -> datetime:
    """A stored time, aware: SQLite hands back naive UTC, Postgres aware times."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _one_of(column: str, values: tuple[str, ...]) -> CheckConstraint:
    """A CHECK instead of a native enum: portable, and a new value is a one-line migration."""
    listed = ", ".join(f"'{v}'" for v in values)
    return CheckConstraint(f"{column} IN ({listed})", name=column)


def _created() -> Mapped[datetime]:
    return mapped_column(DateTime(timezone=True), default=utcnow)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)
    type_annotation_map: ClassVar = {dict[str, Any]: JSON, list[int]: JSON, bytes: LargeBinary}


class User(Base):
    __tablename__ = "users"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    # what the name reads as (arena.text.name_key); NULL for a name older than the rule
    # that another user's already read as
    name_key: Mapped[str | None] = mapped_column(String(64), unique=True)
    password_hash: Mapped[str] = mapped_column(String(255))
    admin: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = _created()


class ApiToken(Base):
    """Only the sha256 of a token is kept: a leaked table does not leak working tokens."""

    __tablename__ = "api_tokens"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    label: Mapped[str] = mapped_column(String(100), default="")
    created_at: Mapped[datetime] = _created()
    revoked: Mapped[bool] = mapped_column(Boolean, default=False)

    user: Mapped[User] = relationship()


class Bot(Base):
    __tablename__ = "bots"
    __table_args__ = (_one_of("promotion", PROMOTIONS),)

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    name_key: Mapped[str | None] = mapped_column(String(64), unique=True)  # as User.name_key
    owner_id: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"), index=True
    )
    created_at: Mapped[datetime] = _created()
    # withdrawn by its owner or an organiser: entered in no new tournament, history kept
    retired_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    promotion: Mapped[str] = mapped_column(String(16), default="now", server_default="now")
    # The version the ladders seat (NULL: the newest valid one). No foreign key: bots and
    # bot_versions would refer to each other, and a dangling id reads as NULL.
    current_version_id: Mapped[int | None] = mapped_column(Integer)

    versions: Mapped[list[BotVersion]] = relationship(
        back_populates="bot", order_by="BotVersion.id"
    )


class BotVersion(Base):
    """One uploaded archive; ``sha256`` names its blob in the content-addressed store and
    ``tree_sha256`` its files (paths and bytes: the same bot however it was zipped)."""

    __tablename__ = "bot_versions"
    __table_args__ = (UniqueConstraint("bot_id", "version"), _one_of("status", BOT_STATUSES))

    id: Mapped[int] = mapped_column(primary_key=True)
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id", ondelete="CASCADE"))
    version: Mapped[str] = mapped_column(String(64))
    sha256: Mapped[str] = mapped_column(String(64), unique=True)
    tree_sha256: Mapped[str | None] = mapped_column(String(64), index=True)
    manifest: Mapped[dict[str, Any]]
    status: Mapped[str] = mapped_column(String(16), default="pending")
    reason: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = _created()
    # when its latest validation was started (upload, re-upload or a sweep's restart);
    # a pending version whose start is long past lost its validation
    validation_started_at: Mapped[datetime | None] = mapped_column(
        DateTime(timezone=True), default=utcnow
    )
    # a Celery worker is validating it until then (one validation per owner at a time)
    validating_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # a manifest with a ``build``: the archive of the built folder (what every match runs)
    # once built, and the start and end of its build's log (arena.builds)
    artifact_sha256: Mapped[str | None] = mapped_column(String(64))
    build_log: Mapped[str | None] = mapped_column(Text)
    # its bot's current version when it was found valid: the one its comparison plays
    # (``arena.comparisons.gate``; NULL: it had none, or it was validated before 0018)
    replaces_id: Mapped[int | None] = mapped_column(ForeignKey("bot_versions.id"))

    # joined: ``ref`` works on rows handed out after their session closed
    bot: Mapped[Bot] = relationship(back_populates="versions", lazy="joined")
    rejections: Mapped[list[BotRejection]] = relationship(
        back_populates="version", order_by="BotRejection.id", cascade="all, delete-orphan"
    )

    @property
    def ref(self) -> str:
        """``name@version``, the form users type; a house bot's is its name alone
        (``house-heuristic``), as every output writes it (it has one version)."""
        if "house" in self.manifest:
            return self.bot.name
        return f"{self.bot.name}@{self.version}"

    @property
    def runs_sha256(self) -> str:
        """The archive a match runs: the built one, or the upload (nothing to build)."""
        return self.artifact_sha256 or self.sha256


class BotRejection(Base):
    """Files once uploaded as a version, rejected, then replaced by a fixed upload under the
    same version number: the history keeps what was rejected and why."""

    __tablename__ = "bot_rejections"

    id: Mapped[int] = mapped_column(primary_key=True)
    bot_version_id: Mapped[int] = mapped_column(
        ForeignKey("bot_versions.id", ondelete="CASCADE"), index=True
    )
    sha256: Mapped[str] = mapped_column(String(64))
    reason: Mapped[str] = mapped_column(Text, default="")
    uploaded_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    replaced_at: Mapped[datetime] = _created()

    version: Mapped[BotVersion] = relationship(back_populates="rejections")


class BotArchive(Base):
    """The bytes of a bot version's archive, named by their sha256: every worker fetches
    bots from here, never from another machine's disk."""

    __tablename__ = "bot_archives"

    sha256: Mapped[str] = mapped_column(String(64), primary_key=True)
    size: Mapped[int] = mapped_column(BigInteger)
    data: Mapped[bytes]


class Tournament(Base):
    __tablename__ = "tournaments"
    __table_args__ = (_one_of("status", TOURNAMENT_STATUSES), _one_of("kind", TOURNAMENT_KINDS))

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(128))
    ruleset: Mapped[dict[str, Any]]
    clock: Mapped[dict[str, Any]]
    # The referee's strike limit (before 0011_max_strikes it was kept in ``clock``).
    max_strikes: Mapped[int] = mapped_column(Integer, server_default=str(DEFAULT_MAX_STRIKES))
    deals_per_game: Mapped[int]
    games_per_match: Mapped[int]
    seed: Mapped[int] = mapped_column(BigInteger)
    status: Mapped[str] = mapped_column(String(16), default="draft")
    created_at: Mapped[datetime] = _created()
    # The model behind its standings (a name in arena.ratings.MODELS); tournaments from
    # before the column were rated by Bradley-Terry, so they keep it.
    rating_model: Mapped[str] = mapped_column(String(32), server_default="bradley-terry")
    # Extra matches still to schedule, a round at a time, where the ranking is unsure once
    # every scheduled match is done; ``adaptive_top``: the places they separate (None: all).
    adaptive_matches: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    adaptive_top: Mapped[int | None] = mapped_column(Integer)
    # The organiser let two bots of one owner share a table (fair play refuses it otherwise).
    allow_same_owner: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    kind: Mapped[str] = mapped_column(String(16), default="tournament", server_default="tournament")

    entries: Mapped[list[TournamentEntry]] = relationship(order_by="TournamentEntry.entrant_index")


class TournamentEntry(Base):
    __tablename__ = "tournament_entries"
    __table_args__ = (
        UniqueConstraint("tournament_id", "entrant_index"),
        UniqueConstraint("tournament_id", "bot_version_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id", ondelete="CASCADE"))
    bot_version_id: Mapped[int] = mapped_column(ForeignKey("bot_versions.id"), index=True)
    entrant_index: Mapped[int]

    bot_version: Mapped[BotVersion] = relationship()


class Match(Base):
    """One table of a tournament. ``seats`` holds the bot_version ids in initial seat order
    (entrant ``e`` of the referee is ``seats[e]``); (tournament, table) is the idempotency key."""

    __tablename__ = "matches"
    __table_args__ = (
        UniqueConstraint("tournament_id", "table_index"),
        _one_of("status", MATCH_STATUSES),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id", ondelete="CASCADE"))
    table_index: Mapped[int]
    seats: Mapped[list[int]]
    seed: Mapped[int] = mapped_column(BigInteger)
    status: Mapped[str] = mapped_column(String(16), default="pending")
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    worker: Mapped[str | None] = mapped_column(String(128))
    attempt_token: Mapped[str | None] = mapped_column(String(32))
    lease_expires_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    late_results: Mapped[int] = mapped_column(Integer, default=0)
    queued_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    reason: Mapped[str | None] = mapped_column(Text)
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    wall_seconds: Mapped[float | None] = mapped_column(Float)
    # A bot ran without the bwrap sandbox (the operator's --unsafe-no-sandbox).
    unsandboxed: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # When it was scheduled (NULL: before 0013): a ladder's matches-per-hour cap counts these.
    created_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=utcnow)


class MatchAnalysis(Base):
    """The master's verdict on every decision of one entrant of a finished match
    (``arena.analysis``; table ``analyses``), with ``samples`` sampled deals per decision
    from ``seed``: one row per (match, entrant, samples, seed), asked for by a user
    (``requested_by``; NULL: the command line). Workers take it under a lease as they take
    matches (``arena.store.leases``); ``result`` is the analysis document once done, and its
    summary is kept in columns for the bot page (losses in points per decision)."""

    __tablename__ = "analyses"
    __table_args__ = (
        UniqueConstraint("match_id", "entrant", "samples", "seed"),
        _one_of("status", ANALYSIS_STATUSES),
        Index(None, "requested_by", "requested_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"))
    entrant: Mapped[int]
    # the entrant's bot version (the match's seats[entrant]), for the bot page
    bot_version_id: Mapped[int] = mapped_column(ForeignKey("bot_versions.id"), index=True)
    samples: Mapped[int]
    seed: Mapped[int] = mapped_column(BigInteger)
    status: Mapped[str] = mapped_column(String(16), default="queued")
    progress_done: Mapped[int] = mapped_column(Integer, default=0)
    progress_total: Mapped[int | None] = mapped_column(Integer)  # decisions; None until started
    requested_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    requested_at: Mapped[datetime] = _created()
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    worker: Mapped[str | None] = mapped_column(String(128))
    attempt_token: Mapped[str | None] = mapped_column(String(32))
    lease_expires_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    queued_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))  # job last sent
    reason: Mapped[str | None] = mapped_column(Text)
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON, deferred=True)
    decisions: Mapped[int | None] = mapped_column(Integer)  # those with a choice, the bot's own
    mean_loss: Mapped[float | None] = mapped_column(Float)
    mean_loss_se: Mapped[float | None] = mapped_column(Float)
    call_loss: Mapped[float | None] = mapped_column(Float)
    card_loss: Mapped[float | None] = mapped_column(Float)
    inaccuracies: Mapped[int | None] = mapped_column(Integer)
    mistakes: Mapped[int | None] = mapped_column(Integer)
    blunders: Mapped[int | None] = mapped_column(Integer)


class MatchHindsight(Base):
    """The decision-level fair-play audit's judging of one finished match (table
    ``hindsights``, ``arena.analysis.hindsight``): queued when the match is recorded (if any
    entrant is not a house bot), worked out once under a lease as an analysis is. ``result``
    is ``{"entrants": [Hindsight.to_dict(), ...]}``, one per judged entrant: its ``entrant``
    is the match's seats index, so ``seats[entrant]`` is its bot version."""

    __tablename__ = "hindsights"
    __table_args__ = (_one_of("status", ANALYSIS_STATUSES),)

    id: Mapped[int] = mapped_column(primary_key=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), unique=True)
    status: Mapped[str] = mapped_column(String(16), default="queued", index=True)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    worker: Mapped[str | None] = mapped_column(String(128))
    attempt_token: Mapped[str | None] = mapped_column(String(32))
    lease_expires_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    queued_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))  # job last sent
    reason: Mapped[str | None] = mapped_column(Text)
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON, deferred=True)
    cpu_seconds: Mapped[float | None] = mapped_column(Float)  # the judging's process CPU time
    telling: Mapped[int | None] = mapped_column(Integer)  # telling decisions found, all entrants


class Ladder(Base):
    """A standing competition per ruleset: every valid, unretired bot's latest version plays
    in it without an organiser (``arena.ladders``). Its matches are those of its tournament
    row (kind "ladder"), which holds the rules, clock and match length."""

    __tablename__ = "ladders"

    id: Mapped[int] = mapped_column(primary_key=True)
    tournament_id: Mapped[int] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), unique=True
    )
    name: Mapped[str] = mapped_column(String(32), unique=True)  # its ruleset's name: "pagat"
    paused: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # matches scheduled but not yet played that the feeder keeps (the workers' queue depth)
    depth: Mapped[int] = mapped_column(Integer, default=8, server_default="8")
    matches_per_hour: Mapped[int | None] = mapped_column(Integer)  # None: no cap
    placement_matches: Mapped[int] = mapped_column(Integer, default=8, server_default="8")
    # settled once every entrant's 95 % interval is at most this many Elo either side
    settle_half_width: Mapped[float] = mapped_column(Float, default=50.0, server_default="50")
    created_at: Mapped[datetime] = _created()

    tournament: Mapped[Tournament] = relationship(lazy="joined")


class Comparison(Base):
    """A new version against the one it would replace (``arena.comparisons``): pairs of
    matches on the same deals, same seats and same opponents, one with each version, until
    a sequential test decides or ``pairs_cap`` pairs are played. Its matches are those of
    its tournament row (kind "comparison"); ``summary`` is the latest ``Summary.to_dict()``."""

    __tablename__ = "comparisons"
    __table_args__ = (_one_of("status", COMPARISON_STATUSES), _one_of("verdict", VERDICTS))

    id: Mapped[int] = mapped_column(primary_key=True)
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id", ondelete="CASCADE"), index=True)
    tournament_id: Mapped[int] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), unique=True
    )
    baseline_version_id: Mapped[int] = mapped_column(ForeignKey("bot_versions.id"))
    candidate_version_id: Mapped[int] = mapped_column(ForeignKey("bot_versions.id"), index=True)
    # started by the platform for a new version (True) or asked for by a user
    gate: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    pairs_cap: Mapped[int]
    # points a deal: the alternatives say the candidate is this much better (or worse)
    delta: Mapped[float] = mapped_column(Float)
    alpha: Mapped[float] = mapped_column(Float)
    beta: Mapped[float] = mapped_column(Float)
    status: Mapped[str] = mapped_column(String(16), default="running")
    verdict: Mapped[str | None] = mapped_column(String(16))
    summary: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    promoted: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    requested_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = _created()
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))

    tournament: Mapped[Tournament] = relationship(lazy="joined")
    baseline: Mapped[BotVersion] = relationship(foreign_keys=[baseline_version_id])
    candidate: Mapped[BotVersion] = relationship(foreign_keys=[candidate_version_id])


class Challenge(Base):
    """An owner's unrated match of one of their versions against opponents they chose
    (``arena.challenges``): one match in a tournament row of kind "challenge"."""

    __tablename__ = "challenges"
    __table_args__ = (Index(None, "requested_by", "created_at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    tournament_id: Mapped[int] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), unique=True
    )
    bot_version_id: Mapped[int] = mapped_column(ForeignKey("bot_versions.id"), index=True)
    requested_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = _created()

    tournament: Mapped[Tournament] = relationship(lazy="joined")


class GameScore(Base):
    """One bot's result in one game of a match (table ``game_results``)."""

    __tablename__ = "game_results"
    __table_args__ = (
        UniqueConstraint("match_id", "game_index", "bot_version_id"),
        CheckConstraint("seat >= 0 AND seat < 4", name="seat"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"))
    game_index: Mapped[int]
    bot_version_id: Mapped[int] = mapped_column(ForeignKey("bot_versions.id"), index=True)
    seat: Mapped[int]
    points: Mapped[int]  # tenths of a point
    deals: Mapped[int]
    calls_made: Mapped[int]


class MatchFault(Base):
    """A strike or forfeit (table ``faults``); game/deal/decision are NULL for start-up faults."""

    __tablename__ = "faults"

    id: Mapped[int] = mapped_column(primary_key=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), index=True)
    bot_version_id: Mapped[int] = mapped_column(ForeignKey("bot_versions.id"), index=True)
    game: Mapped[int | None]
    deal: Mapped[int | None]
    decision: Mapped[int | None]
    kind: Mapped[str] = mapped_column(String(64))
    reason: Mapped[str] = mapped_column(Text)


class Replay(Base):
    """The match record as compressed JSON; ``format`` says how to decode ``data``."""

    __tablename__ = "replays"

    id: Mapped[int] = mapped_column(primary_key=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), unique=True)
    format: Mapped[int]
    data: Mapped[bytes]


class LiveRecord(Base):
    """What a running match has played so far: the record of its finished deals (zlib
    JSON), rewritten by its current attempt after every deal and deleted once the match is
    done, given back or failed. ``attempt_token`` names the attempt that wrote it, so a row
    left by a lost worker is never shown as the new attempt's progress."""

    __tablename__ = "live_records"

    match_id: Mapped[int] = mapped_column(
        ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True
    )
    attempt_token: Mapped[str] = mapped_column(String(32))
    deals: Mapped[int]  # finished deals in ``data``: a poll compares it without reading data
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    data: Mapped[bytes] = mapped_column(deferred=True)


class BotLog(Base):
    """What one bot wrote to stderr/stdout during one match (its tail, capped), so the
    owner can read it from anywhere; ``match_id`` NULL: its validation match."""

    __tablename__ = "bot_logs"
    __table_args__ = (UniqueConstraint("match_id", "bot_version_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    match_id: Mapped[int | None] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"))
    bot_version_id: Mapped[int] = mapped_column(ForeignKey("bot_versions.id"), index=True)
    text: Mapped[str] = mapped_column(Text)


class Submission(Base):
    """One upload by a user, stored or refused (``error``): the per-user hourly limit counts
    these rows, so it holds across web processes and machines."""

    __tablename__ = "submissions"
    __table_args__ = (Index(None, "user_id", "created_at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    bot_version_id: Mapped[int | None] = mapped_column(
        ForeignKey("bot_versions.id", ondelete="SET NULL"), index=True
    )
    filename: Mapped[str] = mapped_column(String(255))
    error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class RatingSnapshot(Base):
    __tablename__ = "rating_snapshots"
    __table_args__ = (Index(None, "tournament_id", "id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id", ondelete="CASCADE"))
    created_at: Mapped[datetime] = _created()
    payload: Mapped[dict[str, Any]]


class UserSession(Base):
    """A logged-in browser: the cookie carries a random token, only its sha256 is kept, so
    logging out (deleting the row) kills every copy of the cookie."""

    __tablename__ = "user_sessions"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = _created()
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class Invite(Base):
    """An organiser's invite code: a sign-up with it is not counted against its address's
    hourly limit (a room behind one NAT), ``uses`` times until ``expires_at``. Only the
    code's sha256 is kept (``arena.accounts.invites``)."""

    __tablename__ = "invites"

    id: Mapped[int] = mapped_column(primary_key=True)
    code_hash: Mapped[str] = mapped_column(String(64), unique=True)
    label: Mapped[str] = mapped_column(String(100), default="")
    uses: Mapped[int] = mapped_column(Integer)
    used: Mapped[int] = mapped_column(Integer, default=0)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    # the organiser who made it; NULL for the command line (or a deleted account)
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = _created()


class RateEvent(Base):
    """One event a rate limit counts: a failed log-in, keyed by account (``user:NAME``) and
    by address (``addr:IP``), or a sign-up (``signup:IP``; with an invite code also
    ``invite:IP``, taken back when the code is right). Counted here, the limits hold
    across every web worker and machine."""

    __tablename__ = "rate_events"
    __table_args__ = (Index(None, "key", "created_at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    key: Mapped[str] = mapped_column(String(160))
    created_at: Mapped[datetime] = _created()


class TournamentRun(Base):
    """A run started from the dashboard: which backend plays it and, for the embedded one,
    the process (host, pid) to signal when an organiser stops it."""

    __tablename__ = "tournament_runs"

    tournament_id: Mapped[int] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True
    )
    backend: Mapped[str] = mapped_column(String(16))
    host: Mapped[str] = mapped_column(String(128), default="")
    pid: Mapped[int | None]
    started_at: Mapped[datetime] = _created()
    stopped_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class Installation(Base):
    """This database's identity (table ``installation``): one row, a random id drawn when the
    schema was created. Every job sent to the workers carries it; a worker on another
    database refuses the job (``workers.identity``)."""

    __tablename__ = "installation"
    __table_args__ = (CheckConstraint("id = 1", name="one_row"),)

    id: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    identity: Mapped[str] = mapped_column(String(32))
    created_at: Mapped[datetime] = _created()
