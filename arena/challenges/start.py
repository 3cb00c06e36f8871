"""Starting a challenge: one match (the ladder's rules, clock and length: its games rotate
the seats) in a tournament row of kind "challenge", played by the workers or by
``arena ladder run`` as a comparison's are, rated nowhere. Each user has ``PER_DAY``
challenges in any 24 hours: worker time is shared."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from arena.comparisons.errors import ComparisonRefused
from arena.comparisons.promotion import check_rights
from arena.comparisons.start import check_table, ladder_for, rival_versions
from arena.referee import secret_seed
from arena.runtime import Runtime
from arena.store import Database, Tournament, claimable_matches, create_tournament
from arena.store.bots import find_bot_version
from arena.store.models import Challenge, Match, utcnow
from arena.tournaments.dispatch import finish_if_over
from arena.tournaments.spec import TournamentSpec

PER_DAY = 10
WINDOW = timedelta(hours=24)


def start_challenge(
    db: Database,
    runtime: Runtime,
    ref: str,
    opponents: Sequence[str],
    user_id: int | None,
    admin: bool = False,
) -> int:
    """A challenge of the valid version ``ref`` against ``opponents`` (house bot names or
    ``NAME@VERSION`` of other owners' bots that are not retired), asked for by its owner
    (or an organiser; ``user_id`` None: the command line); its match's id."""
    rivals = rival_versions(db, runtime, opponents)
    with db.session() as s:
        version = find_bot_version(s, ref)
        check_rights(version.bot, user_id, admin)
        retired = [r.ref for r in rivals if s.merge(r, load=False).bot.retired_at is not None]
        if retired:
            raise ComparisonRefused(f"{', '.join(retired)} is retired: it plays no more")
        check_table([version], rivals)
        if user_id is not None and challenges_left(s, user_id) <= 0:
            raise ComparisonRefused(
                f"{PER_DAY} challenges in 24 hours are used: the oldest frees one", 429
            )
        spec = TournamentSpec.from_row(ladder_for(s, version).tournament)
        columns = spec.resolved().columns() | {
            "name": f"{version.ref} challenges {', '.join(r.ref for r in rivals)}",
            "kind": "challenge",
            "status": "running",
        }
        table = (0, (0, 1, 2, 3), secret_seed())
        tournament = create_tournament(s, columns, [version, *rivals], [table])
        s.add(
            Challenge(tournament_id=tournament.id, bot_version_id=version.id, requested_by=user_id)
        )
        s.flush()
        return s.scalars(select(Match.id).where(Match.tournament_id == tournament.id)).one()


def challenges_left(s: Session, user_id: int) -> int:
    """How many more challenges the user may ask for now."""
    since = utcnow() - WINDOW
    query = select(func.count()).where(
        Challenge.requested_by == user_id, Challenge.created_at >= since
    )
    return max(0, PER_DAY - (s.scalar(query) or 0))


def unplayed(db: Database) -> list[int]:
    """The challenges' matches waiting for a player here (``arena ladder run``); a
    challenge whose match has ended is closed on the way."""
    with db.session(read_only=True) as s:
        query = (
            select(Tournament.id)
            .join(Challenge, Challenge.tournament_id == Tournament.id)
            .where(Tournament.status == "running")
        )
        running = list(s.scalars(query))
        todo = {t: claimable_matches(s, t) for t in running}
    for tournament_id, matches in todo.items():
        if not matches:
            finish_if_over(db, tournament_id)
    return [m for matches in todo.values() for m in matches]
