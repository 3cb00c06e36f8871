"""Running one stored match: the job the embedded executor and the Celery workers share."""

from __future__ import annotations

import time

from arena.game import Ruleset
from arena.referee import Clock, MatchSpec, play_match
from arena.store import (
    BotVersion,
    Database,
    claim_match,
    get_match,
    get_tournament,
    mark_failed,
    record_result,
)
from arena.tournaments.registry import Runtime, player_for


def match_spec(db: Database, match_id: int) -> tuple[MatchSpec, list[BotVersion]]:
    """The referee's view of a stored match and the versions in entrant order."""
    with db.session(read_only=True) as s:
        match = get_match(s, match_id)
        tournament = get_tournament(s, match.tournament_id)
        versions = [s.get(BotVersion, v) for v in match.seats]
        clock = dict(tournament.clock)
    rules = Ruleset.from_dict(tournament.ruleset).with_(deals_per_game=tournament.deals_per_game)
    strikes = clock.pop("max_strikes", 3)
    spec = MatchSpec(
        f"t{tournament.id}-m{match_id}",
        rules,
        match.seed,
        tournament.games_per_match,
        Clock(**clock),
        strikes,
    )
    return spec, versions


def run_match(db: Database, runtime: Runtime, match_id: int, worker: str) -> str:
    """Claim, play and record one match; returns done, skipped (claimed elsewhere) or failed.

    Results are written in one transaction keyed by the match, so a retried job never
    double-counts. A platform error (not a bot's: those are faults inside the result) marks
    the match failed and leaves the rest of the tournament running.
    """
    with db.session() as s:
        if not claim_match(s, match_id, worker):
            return "skipped"
    started = time.perf_counter()
    try:
        spec, versions = match_spec(db, match_id)
        log_dir = runtime.log_dir(spec.match_id)
        players = [player_for(runtime, v, spec.seed + i, log_dir) for i, v in enumerate(versions)]
        result = play_match(spec, players)
    except Exception as exc:
        with db.session() as s:
            mark_failed(s, match_id, f"{type(exc).__name__}: {exc}"[:2000])
        return "failed"
    with db.session() as s:
        record_result(s, match_id, result, time.perf_counter() - started)
    return "done"
