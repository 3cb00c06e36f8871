"""Storage: SQLAlchemy models, Alembic migrations, bot archive blobs and the services on them.

Services are plain functions taking a ``Session``; the caller owns the transaction::

    db = Database.from_settings()
    with db.session() as s:          # commits at the end, rolls back on error
        lease = claim_match(s, match_id, "worker-1")
"""

from arena.store.archives import cached_archive, get_archive, put_archive
from arena.store.blobs import BlobStore, pack_directory, sha256_hex
from arena.store.bots import (
    add_bot_version,
    find_bot_version,
    list_bots,
    owners_of,
    save_validation_log,
    set_bot_status,
    validation_log,
)
from arena.store.db import Database, engine_for, normalise_url
from arena.store.errors import StoreError
from arena.store.live import live_record_state, load_live_record_json, save_live_record
from arena.store.matches import (
    Lease,
    claim_match,
    claimable_matches,
    get_match,
    mark_failed,
    pending_matches,
    progress,
    release_match,
    renew_lease,
    retry_failed,
    unsandboxed_count,
)
from arena.store.migrate import upgrade
from arena.store.models import (
    ApiToken,
    Base,
    Bot,
    BotArchive,
    BotLog,
    BotVersion,
    GameScore,
    LiveRecord,
    Match,
    MatchFault,
    RatingSnapshot,
    Replay,
    Submission,
    Tournament,
    TournamentEntry,
    User,
)
from arena.store.results import (
    GameLine,
    GameRows,
    bot_logs,
    game_rows,
    latest_rating_snapshot,
    load_replay,
    load_replay_json,
    record_result,
    save_rating_snapshot,
)
from arena.store.storage import QuotaExceeded, free_rejected_archives, storage_used
from arena.store.tournaments import (
    TableSpec,
    add_matches,
    create_tournament,
    get_tournament,
    list_tournaments,
    set_tournament_status,
)
from arena.store.users import (
    authenticate,
    check_password,
    create_user,
    issue_token,
    revoke_token,
    user_for_token,
)

__all__ = [
    "ApiToken",
    "Base",
    "BlobStore",
    "Bot",
    "BotArchive",
    "BotLog",
    "BotVersion",
    "Database",
    "GameLine",
    "GameRows",
    "GameScore",
    "Lease",
    "LiveRecord",
    "Match",
    "MatchFault",
    "QuotaExceeded",
    "RatingSnapshot",
    "Replay",
    "StoreError",
    "Submission",
    "TableSpec",
    "Tournament",
    "TournamentEntry",
    "User",
    "add_bot_version",
    "add_matches",
    "authenticate",
    "bot_logs",
    "cached_archive",
    "check_password",
    "claim_match",
    "claimable_matches",
    "create_tournament",
    "create_user",
    "engine_for",
    "find_bot_version",
    "free_rejected_archives",
    "game_rows",
    "get_archive",
    "get_match",
    "get_tournament",
    "issue_token",
    "latest_rating_snapshot",
    "list_bots",
    "list_tournaments",
    "live_record_state",
    "load_live_record_json",
    "load_replay",
    "load_replay_json",
    "mark_failed",
    "normalise_url",
    "owners_of",
    "pack_directory",
    "pending_matches",
    "progress",
    "put_archive",
    "record_result",
    "release_match",
    "renew_lease",
    "retry_failed",
    "revoke_token",
    "save_live_record",
    "save_rating_snapshot",
    "save_validation_log",
    "set_bot_status",
    "set_tournament_status",
    "sha256_hex",
    "storage_used",
    "unsandboxed_count",
    "upgrade",
    "user_for_token",
    "validation_log",
]
