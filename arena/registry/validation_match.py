"""A stored version's validation match, kept as any match is (``arena.store.validations``):
claimed under a lease, played by stored seats, recorded by ``record_result`` with its
replay, faults and the bot's log with its decision markers. So a rejected version is
diagnosed as a ladder fault is: its owner steps through the match to the failing decision,
exports that decision and reads what the bot wrote there.

It is played under the first ladder's settings whose rules the bot's protocol plays (those
of its first ladder match: rules, deals, clock, games), else the defaults. One thing
differs, which no bot is told: its first fault forfeits the seat (``STRIKES``), so the bot
is asked nothing more and the rest of the match, house bots only, takes milliseconds."""

from __future__ import annotations

import dataclasses
import os
import secrets
import socket
import time
from dataclasses import dataclass
from pathlib import Path

from arena.bots.package import BotPackage
from arena.game import Ruleset
from arena.referee import Clock, MatchResult, MatchSpec, play_match, secret_seed
from arena.registry.house import house_version
from arena.registry.players import captured_logs, player_for
from arena.runtime import Runtime
from arena.store import (
    BotVersion,
    Database,
    Lease,
    StoreError,
    Tournament,
    claim_match,
    record_result,
)
from arena.store.ladders import list_ladders
from arena.store.leases import kept
from arena.store.matches import MATCHES, mark_failed
from arena.store.validations import add_validation

# The ladder's anchors, by the names tournaments give them: opponents no bot can tell apart
# from a ladder table's (``arena.ladders.entrants.ANCHORS``).
OPPONENTS = ("house:heuristic", "house:random", "house:heuristic#2")
GAMES = 4  # with no ladder to follow: the default duplicate set (every seat's hands)
STRIKES = 1  # its first fault forfeits the seat: the verdict is in
# The start-up allowance is not sent to bots: a slow first start (a cold cache) is spared.
STARTUP_MS = 20_000


@dataclass(frozen=True)
class Table:
    """The settings a validation match is played under."""

    rules: Ruleset
    games: int
    clock: Clock

    @property
    def played_clock(self) -> Clock:
        startup_ms = max(self.clock.startup_ms, STARTUP_MS)
        return dataclasses.replace(self.clock, startup_ms=startup_ms)

    def spec(self, match_id: str, seed: int) -> MatchSpec:
        return MatchSpec(match_id, self.rules, seed, self.games, self.played_clock, STRIKES)

    def columns(self, name: str, seed: int) -> dict:
        """Its tournament row's settings."""
        return {
            "name": name,
            "ruleset": self.rules.to_dict(),
            "deals_per_game": self.rules.deals_per_game,
            "clock": dataclasses.asdict(self.played_clock),
            "games_per_match": self.games,
            "max_strikes": STRIKES,
            "seed": seed,
        }


def default_table(package: BotPackage) -> Table:
    """The rules the bot's protocol implies (a Bhoos bot knows only the bhoos preset), the
    default clock and games."""
    return Table(package.speaks.rules, GAMES, Clock())


def ladder_table(db: Database, package: BotPackage) -> Table:
    """The settings of the first ladder whose rules the bot plays; the defaults if none does."""
    with db.session(read_only=True) as s:
        for ladder in list_ladders(s):
            row = ladder.tournament
            rules = Ruleset.from_dict(row.ruleset)
            if package.speaks.plays(rules):
                return Table(rules, row.games_per_match, Clock(**row.clock))
    return default_table(package)


@dataclass(frozen=True)
class ValidationMatch:
    """A claimed validation match: its seats (``versions``, by entrant), the version judged
    at ``seat``, what the referee plays."""

    db: Database
    lease: Lease
    tournament_id: int
    versions: list[BotVersion]
    seat: int
    spec: MatchSpec

    def play(self, runtime: Runtime, log_dir: Path) -> MatchResult:
        """Play it with every seat as a ladder match seats it (the bot from its stored
        archive, its log in ``log_dir``) under a renewed lease, and record it (no fair-play
        audit judges it: no statistic counts it)."""
        players = [
            player_for(self.db, runtime, version, self.spec.seed + entrant, log_dir)
            for entrant, version in enumerate(self.versions)
        ]
        lease = self.lease
        started = time.perf_counter()
        with kept(self.db, MATCHES, lease.match_id, lease.token, runtime.settings.lease_s):
            result = play_match(self.spec, players)
        wall_s = time.perf_counter() - started
        logs = captured_logs(log_dir, self.versions)
        with self.db.session() as s:
            if not record_result(s, lease, result, wall_s, logs, audited=False):
                raise StoreError(f"validation match {lease.match_id} was taken over meanwhile")
            s.get_one(Tournament, self.tournament_id).status = "done"
        return result

    def bot_log(self, log_dir: Path) -> str | None:
        """What the bot judged wrote (None: it left no log)."""
        return captured_logs(log_dir, self.versions).get(self.seat)

    def abandon(self, reason: str) -> None:
        """End a match that could not be played (the platform's failure, not the bot's)."""
        with self.db.session() as s:
            tournament = s.get(Tournament, self.tournament_id)
            if tournament is not None:  # not replaced by a later validation meanwhile
                mark_failed(s, self.lease.match_id, reason)
                tournament.status = "done"


def open_validation(
    db: Database, runtime: Runtime, version_id: int, package: BotPackage
) -> ValidationMatch:
    """The version's validation match (replacing any earlier one), the bot at a random seat
    among ``OPPONENTS`` in a random order, claimed by this process."""
    table = ladder_table(db, package)
    opponents = [house_version(db, runtime, name) for name in OPPONENTS]
    order = secrets.SystemRandom().sample(opponents, len(opponents))
    seat = secrets.randbelow(len(opponents) + 1)
    settings = runtime.settings
    with db.session() as s:
        version = s.get_one(BotVersion, version_id)
        columns = table.columns(f"validation of {version.ref}", secret_seed())
        match = add_validation(s, columns, version, order, seat, secret_seed())
        # not HOST:PID, the executors' names: their recovery never frees it for a match job
        worker = f"validation@{socket.gethostname()}:{os.getpid()}"
        lease = claim_match(s, match.id, worker, settings.lease_s, settings.max_attempts)
        if lease is None:
            raise RuntimeError(f"validation match {match.id} could not be claimed")
        versions = [s.get_one(BotVersion, v) for v in match.seats]
        spec = table.spec(f"t{match.tournament_id}-m{match.id}", match.seed)
        return ValidationMatch(db, lease, match.tournament_id, versions, seat, spec)
