"""Starting a comparison: its tournament row (kind "comparison": leases, results, replays,
logs and the audit serve it as any match), its entrants, and the tables of each next pair.

A pair is two tables dealt from one seed, the seat of the version compared turning with
every pair, the same three opponents in the same seats at both: what differs between its
two matches is the version, nothing else. The owner's two versions never sit at one table.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.bots.protocols import protocol_of
from arena.comparisons.errors import ComparisonRefused
from arena.comparisons.promotion import check_rights
from arena.ladders.entrants import ANCHORS
from arena.ratings.sprt import Bounds
from arena.referee import secret_seed
from arena.registry import house_version
from arena.runtime import Runtime
from arena.store import BotVersion, Database, add_matches, create_tournament, progress
from arena.store.bots import find_bot_version
from arena.store.ladders import list_ladders
from arena.store.models import Comparison, Ladder
from arena.tournaments.spec import TournamentSpec

SEATS = 4
OPPONENTS = SEATS - 1


def start_comparison(
    db: Database,
    runtime: Runtime,
    baseline_ref: str,
    candidate_ref: str,
    *,
    bounds: Bounds | None = None,
    opponents: Sequence[str] = ANCHORS,
    user_id: int | None = None,
    admin: bool = False,
) -> int:
    """A comparison of two valid versions of one bot (``name@version`` refs), asked for by
    ``user_id`` (None: the command line), who must own the bot or be an organiser
    (``admin``), with no other comparison they asked for of it still running; its id (the
    gate's are ``open_gates``'). ``opponents``: three house bot names or refs of other
    owners' bots."""
    rivals = rival_versions(db, runtime, opponents)
    with db.session() as s:
        baseline, candidate = find_bot_version(s, baseline_ref), find_bot_version(s, candidate_ref)
        check_rights(candidate.bot, user_id, admin)
        if user_id is not None and _asked_running(s, candidate.bot_id):
            raise ComparisonRefused(
                f"a comparison of {candidate.bot.name} you asked for is still running: "
                "wait for its verdict",
                429,
            )
        comparison = create_comparison(s, baseline, candidate, rivals, bounds or Bounds())
        comparison.requested_by = user_id
        return comparison.id


def _asked_running(s: Session, bot_id: int) -> bool:
    query = select(Comparison.id).where(
        Comparison.bot_id == bot_id, Comparison.status == "running", ~Comparison.gate
    )
    return s.scalar(query.limit(1)) is not None


def rival_versions(db: Database, runtime: Runtime, refs: Sequence[str]) -> list[BotVersion]:
    return [_opponent(db, runtime, ref) for ref in refs]


def create_comparison(
    s: Session,
    baseline: BotVersion,
    candidate: BotVersion,
    rivals: Sequence[BotVersion],
    bounds: Bounds,
    gate: bool = False,
) -> Comparison:
    """The comparison's rows, in ``s``: a running tournament with its five entrants, no
    match yet (``advance`` schedules them)."""
    if bounds.cap < 1:
        raise ComparisonRefused("a comparison needs at least one pair of matches")
    rivals = [s.merge(r, load=False) for r in rivals]
    _check_versions(baseline, candidate, rivals)
    spec = TournamentSpec.from_row(ladder_for(s, candidate).tournament)
    name = f"{candidate.ref} against {baseline.version}"
    columns = spec.resolved().columns() | {"name": name, "kind": "comparison"}
    tournament = create_tournament(s, columns, [baseline, candidate, *rivals], [])
    tournament.status = "running"
    comparison = Comparison(
        bot_id=candidate.bot_id,
        tournament_id=tournament.id,
        baseline_version_id=baseline.id,
        candidate_version_id=candidate.id,
        gate=gate,
        pairs_cap=bounds.cap,
        delta=bounds.delta,
        alpha=bounds.alpha,
        beta=bounds.beta,
    )
    s.add(comparison)
    s.flush()
    return comparison


def bounds_of(comparison: Comparison) -> Bounds:
    return Bounds(comparison.delta, comparison.alpha, comparison.beta, comparison.pairs_cap)


def add_pairs(s: Session, comparison: Comparison, count: int) -> None:
    """Schedule the next ``count`` pairs (entrants: 0 baseline, 1 candidate, 2-4 the
    opponents, who turn one seat with every four pairs)."""
    done = _scheduled_pairs(s, comparison)
    tables = []
    for pair in range(done, done + count):
        seat = pair % SEATS
        turn = (pair // SEATS) % OPPONENTS
        others = [2 + (k + turn) % OPPONENTS for k in range(OPPONENTS)]
        seed = secret_seed()
        for version in (0, 1):
            seats = [*others[:seat], version, *others[seat:]]
            tables.append((0, (seats[0], seats[1], seats[2], seats[3]), seed))
    add_matches(s, comparison.tournament_id, tables)


def _scheduled_pairs(s: Session, comparison: Comparison) -> int:
    return sum(progress(s, comparison.tournament_id).values()) // 2


def _opponent(db: Database, runtime: Runtime, ref: str) -> BotVersion:
    """A house bot by name (registered on first use), or another bot's ``NAME@VERSION``."""
    if ref.startswith("house:"):
        return house_version(db, runtime, ref)
    with db.session(read_only=True) as s:
        return find_bot_version(s, ref)


def _check_versions(
    baseline: BotVersion, candidate: BotVersion, rivals: Sequence[BotVersion]
) -> None:
    if baseline.bot_id != candidate.bot_id or baseline.id == candidate.id:
        raise ComparisonRefused("a comparison is between two versions of one bot")
    check_table([baseline, candidate], rivals)


def check_table(players: Sequence[BotVersion], rivals: Sequence[BotVersion]) -> None:
    """``players`` (versions of one bot) may sit with ``rivals``: all valid, three different
    opponents, no two of one owner and none of the players' owner."""
    for version in (*players, *rivals):
        if version.status != "valid":
            raise ComparisonRefused(f"{version.ref} is {version.status}, not valid: it cannot play")
    if len(rivals) != OPPONENTS or len({r.id for r in rivals}) != OPPONENTS:
        raise ComparisonRefused(f"it takes {OPPONENTS} different opponents")
    player = players[0]
    owners = [v.bot.owner_id for v in (player, *rivals) if v.bot.owner_id is not None]
    if len(owners) != len(set(owners)) or player.bot_id in {r.bot_id for r in rivals}:
        raise ComparisonRefused(
            f"the opponents must be of different owners, none of them {player.bot.name}'s"
        )


def ladder_for(s: Session, candidate: BotVersion) -> Ladder:
    """The first ladder whose rules the candidate's protocol plays: its rules, clock and
    match length are the comparison's."""
    protocol = protocol_of(candidate.manifest)
    for ladder in list_ladders(s):
        if protocol.refusal(TournamentSpec.from_row(ladder.tournament).rules) is None:
            return ladder
    raise ComparisonRefused(f"{candidate.ref} plays the rules of no ladder here")
