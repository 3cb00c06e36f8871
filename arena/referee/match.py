"""One match: a duplicate set of games between four Players, under one clock and one policy.

Entrant ``e`` sits in seat ``(e + g) % 4`` in game ``g``; every game replays the same
seeded deals, so over four games each entrant holds every hand once. That is only fair if
no bot remembers one game in the next: every game starts and closes all players, so a
process bot plays each game as a fresh process with fresh storage, and the handshake
carries an opaque id of its own per game and bot (a one-way hash: never the seed). Any
failure of a bot becomes a fallback move plus a strike; after ``max_strikes`` strikes, or
when the bot dies, its seat is auto-played for the rest of the match. The match always
completes.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from typing import Any

from arena.game import CALLING, OVER, PAGAT, Card, Deal, Game, Ruleset, call_made, game_record
from arena.game.record import points_json
from arena.players.player import (
    BotDied,
    BotFault,
    BotTimeout,
    DealEnd,
    Event,
    GameEnd,
    Kind,
    MatchEnd,
    MatchInfo,
    Player,
    Request,
    TrickEnd,
)
from arena.referee.moves import checked, fallback
from arena.referee.result import FORFEIT, Fault, GameResult, MatchResult

MATCH_FORMAT = "callbreak-match"


DEFAULT_MAX_STRIKES = 3  # strikes (timeouts, illegal moves) before a bot is forfeited


@dataclass(frozen=True)
class Clock:
    """Per-decision allowance plus a per-game bank that absorbs any overrun."""

    decision_ms: int = 1000
    bank_ms: int = 10_000
    startup_ms: int = 15_000


def secret_seed() -> int:
    """A 63-bit seed for a match's deals from the OS's cryptographic source.

    Every seed the platform picks comes from here, never from anything public (a
    tournament's seed, an id, the time): a bot that could recompute the seed would know
    every hand."""
    return secrets.randbits(63)


def hello_id(seed: int, game: int, entrant: int) -> str:
    """The id in an entrant's ``Hello`` for one game: 96 bits of SHA-256 over the match's
    seed, the game and the entrant. Distinct per game and bot, the same when the same match
    is replayed (so a bot that seeds its RNG from it repeats a seeded run exactly), and
    one-way: it tells a bot nothing about a secret 63-bit seed, hence nothing of the deals."""
    material = f"callbreak-arena/hello-id/{seed}/{game}/{entrant}".encode()
    return hashlib.sha256(material).hexdigest()[:24]


@dataclass(frozen=True)
class MatchSpec:
    match_id: str
    rules: Ruleset = PAGAT
    seed: int = 0
    games: int = 4
    clock: Clock = field(default_factory=Clock)
    max_strikes: int = DEFAULT_MAX_STRIKES


@dataclass
class _Entrant:
    player: Player
    strikes: int = 0
    forfeited: bool = False
    bank_ms: float = 0.0


DealHook = Callable[[int, Deal, Sequence[int]], None]


class Referee:
    def __init__(
        self, spec: MatchSpec, players: Sequence[Player], on_deal: DealHook | None
    ) -> None:
        if len(players) != 4:
            raise ValueError(f"a match needs 4 players, not {len(players)}")
        self.spec, self.on_deal = spec, on_deal
        # Called before every decision; it may raise to abandon the match (bots are closed).
        self.before_decision: Callable[[], None] | None = None
        self.entrants = [_Entrant(p) for p in players]
        self.result = MatchResult(spec.match_id, [p.name for p in players])
        self.next_id = 0
        self.games: list[dict[str, Any]] = []
        # the game being played: (game, entrant in each seat, decision logs by deal)
        self._playing: tuple[Game, list[int], dict[int, list[dict[str, Any]]]] | None = None

    def run(self) -> MatchResult:
        for g in range(self.spec.games):
            try:
                self._start_all(g)
                self._play_game(g)
                if g == self.spec.games - 1:
                    self._broadcast(MatchEnd())
            finally:
                self._close_all()
        self.result.forfeited = [e.forfeited for e in self.entrants]
        self.result.sandbox = [e.player.sandbox for e in self.entrants]
        self.result.record = self._record(self.games)
        return self.result

    def record_so_far(self) -> dict[str, Any]:
        """The match record of the finished games and of the finished deals of the game
        being played (``partial``: true), e.g. from ``on_deal`` for a running match's page.

        Nothing of an unfinished deal is in it, not even a fault, and no seed: the match
        seed (every game's) would give away every hand still to be played."""
        games = list(self.games)
        if self._playing is not None:
            games.append(self._game_record(*self._playing))
        done = {(g, d["index"]) for g, game in enumerate(games) for d in game["deals"]}
        record = self._record([{k: v for k, v in g.items() if k != "seed"} for g in games])
        del record["seed"]
        faults = [
            f for f in record["faults"] if f["deal"] is None or (f["game"], f["deal"]) in done
        ]
        forfeited = {f["entrant"] for f in faults if f["kind"] == FORFEIT}
        record.update(faults=faults, forfeited=[e in forfeited for e in range(4)], partial=True)
        return record

    def _close_all(self) -> None:
        """Stop every player at once: each waits for its bot's end and its processes' exit,
        and the next game's bots start only when all of them are gone."""
        with ThreadPoolExecutor(max_workers=4) as pool:
            list(pool.map(lambda e: e.player.close(), self.entrants))

    def _start_all(self, g: int) -> None:
        """Start every seat still in play for game ``g``, each under an id of its own."""
        spec, clock = self.spec, self.spec.clock
        live = [i for i, e in enumerate(self.entrants) if not e.forfeited]
        infos = [
            MatchInfo(hello_id(spec.seed, g, i), spec.rules, clock.decision_ms, clock.bank_ms)
            for i in live
        ]
        with ThreadPoolExecutor(max_workers=4) as pool:
            futures = [
                pool.submit(_start, self.entrants[i].player, info, clock.startup_ms / 1000)
                for i, info in zip(live, infos, strict=True)
            ]
        for index, fut in zip(live, futures, strict=True):
            if (failure := fut.result()) is not None:
                self._forfeit(index, Fault(index, "start_failed", failure, g))

    def _play_game(self, g: int) -> None:
        game = Game(self.spec.rules, self.spec.seed)
        seats = [(s - g) % 4 for s in range(4)]  # entrant in each seat
        for e in self.entrants:
            e.bank_ms = self.spec.clock.bank_ms
        logs: dict[int, list[dict[str, Any]]] = {}
        cpu_before = [e.player.cpu_seconds() for e in self.entrants]
        self._playing = (game, seats, logs)
        while not game.over:
            deal = game.deal
            self._turn(game, deal, seats, g, logs.setdefault(deal.index, []))
        self._playing = None
        self._finish_game(game, seats, g, logs)
        # CPU per game, not per decision: the kernel counts CPU time in 10 ms ticks.
        cpu_ms = [
            _cpu_ms(b, e.player.cpu_seconds())
            for b, e in zip(cpu_before, self.entrants, strict=True)
        ]
        self.games[-1]["cpu_ms"] = [cpu_ms[e] for e in seats]

    def _turn(
        self, game: Game, deal: Deal, seats: list[int], g: int, log: list[dict[str, Any]]
    ) -> None:
        seat = deal.seat_to_act()
        kind: Kind = "call" if deal.phase == CALLING else "play"
        if self.before_decision is not None:
            self.before_decision()
        move = self._decide(seats[seat], kind, deal, g, log)
        if kind == "call":
            game.call(seat, move)
            return
        if game.play(seat, move) is not None:
            self._broadcast(TrickEnd(deal.tricks[-1]))
        if deal.phase == OVER:
            self._deal_over(deal, g, seats)

    def _decide(
        self, e: int, kind: Kind, deal: Deal, g: int, log: list[dict[str, Any]]
    ) -> int | Card:
        entrant, seat = self.entrants[e], deal.seat_to_act()
        obs = deal.observation(seat)
        if entrant.forfeited:
            log.append({"seat": seat, "auto": True})
            return fallback(kind, obs)
        self.next_id += 1
        allowed = self.spec.clock.decision_ms + entrant.bank_ms
        request = Request(self.next_id, kind, g, obs, int(entrant.bank_ms), int(allowed))
        t0 = time.perf_counter()
        fault = None
        try:
            move = checked(kind, entrant.player.decide(request, allowed / 1000), obs)
        except BotFault as exc:
            fault, move = exc, fallback(kind, obs)
        wall_ms = (time.perf_counter() - t0) * 1000
        if isinstance(fault, BotTimeout):
            fault = BotTimeout(f"{fault.reason} ({self._waited(wall_ms, entrant.bank_ms)})")
        entrant.bank_ms = max(
            0.0, entrant.bank_ms - max(0.0, wall_ms - self.spec.clock.decision_ms)
        )
        log.append(_decision_entry(seat, request.id, wall_ms, fault))
        if fault is not None:
            self._strike(e, fault, g, deal.index, request.id)
        return move

    def _waited(self, wall_ms: float, bank_ms: float) -> str:
        """How long a timed-out decision was waited for against its allowance: the
        per-decision time plus what was left of the bank."""
        decision_ms = self.spec.clock.decision_ms
        return (
            f"waited {wall_ms:.0f} ms, the allowance is {decision_ms + bank_ms:.0f} ms: "
            f"{decision_ms} ms a decision + {bank_ms:.0f} ms of bank"
        )

    def _strike(self, e: int, exc: BotFault, g: int, deal: int, decision: int) -> None:
        entrant = self.entrants[e]
        entrant.strikes += 1
        self.result.faults.append(Fault(e, exc.kind, exc.reason, g, deal, decision))
        if isinstance(exc, BotDied):
            self._forfeit(e, Fault(e, "forfeit", f"the bot died: {exc.reason}", g, deal, decision))
        elif entrant.strikes >= self.spec.max_strikes:
            reason = f"{entrant.strikes} strikes (limit {self.spec.max_strikes})"
            self._forfeit(e, Fault(e, "forfeit", reason, g, deal, decision))

    def _forfeit(self, e: int, fault: Fault) -> None:
        entrant = self.entrants[e]
        if fault.kind != "forfeit":
            self.result.faults.append(fault)
            fault = Fault(e, "forfeit", fault.reason, fault.game, fault.deal, fault.decision)
        self.result.faults.append(fault)
        entrant.forfeited = True
        entrant.player.close()

    def _broadcast(self, event: Event) -> None:
        for entrant in self.entrants:
            if not entrant.forfeited:
                entrant.player.notify(event)

    def _deal_over(self, deal: Deal, g: int, seats: list[int]) -> None:
        points = deal.points()
        scores = [s + p for s, p in zip(deal.scores_before, points, strict=True)]
        self._broadcast(
            DealEnd(
                g,
                deal.index,
                tuple(deal.won),
                tuple(c or 0 for c in deal.calls),
                tuple(points_json(p) for p in points),
                tuple(points_json(s) for s in scores),
            )
        )
        if self.on_deal is not None:
            self.on_deal(g, deal, seats)

    def _finish_game(
        self, game: Game, seats: list[int], g: int, logs: dict[int, list[dict[str, Any]]]
    ) -> None:
        self._broadcast(GameEnd(g, tuple(points_json(s) for s in game.scores)))
        by_entrant = {seats[s]: s for s in range(4)}
        made = [
            sum(call_made(d.calls[s] or 0, d.won[s], d.rules) for d in game.finished)
            for s in range(4)
        ]
        self.result.games.append(
            GameResult(
                index=g,
                seats=tuple(seats),
                points=tuple(game.scores[by_entrant[e]] for e in range(4)),
                calls_made=tuple(made[by_entrant[e]] for e in range(4)),
                deals=len(game.finished),
            )
        )
        self.games.append(self._game_record(game, seats, logs))

    def _game_record(
        self, game: Game, seats: list[int], logs: dict[int, list[dict[str, Any]]]
    ) -> dict[str, Any]:
        """The record of ``game``'s finished deals, with their decision logs."""
        record = game_record(game, [self.result.players[e] for e in seats])
        record["seats"] = seats
        for deal_record in record["deals"]:
            deal_record["decisions"] = logs[deal_record["index"]]
        return record

    def _record(self, games: list[dict[str, Any]]) -> dict[str, Any]:
        spec = self.spec
        return {
            "format": MATCH_FORMAT,
            "version": 1,
            "match_id": spec.match_id,
            "rules": spec.rules.to_dict(),
            "seed": spec.seed,
            "clock": asdict(spec.clock),
            "max_strikes": spec.max_strikes,
            "players": self.result.players,
            "games": games,
            "faults": [f.to_dict() for f in self.result.faults],
            "forfeited": [e.forfeited for e in self.entrants],
            "sandbox": [e.player.sandbox for e in self.entrants],
            "totals": [points_json(t) for t in self.result.totals],
        }


def _start(player: Player, info: MatchInfo, timeout_s: float) -> str | None:
    try:
        player.start(info, timeout_s)
    except BotFault as exc:
        return exc.reason
    return None


def _cpu_ms(before: float | None, after: float | None) -> int | None:
    return None if before is None or after is None else round((after - before) * 1000)


def _decision_entry(
    seat: int, decision: int, wall_ms: float, fault: BotFault | None
) -> dict[str, Any]:
    entry: dict[str, Any] = {"seat": seat, "id": decision, "ms": round(wall_ms, 3)}
    if fault is not None:
        entry["fault"] = fault.kind
    return entry


def play_match(
    spec: MatchSpec, players: Sequence[Player], on_deal: DealHook | None = None
) -> MatchResult:
    """Play the whole duplicate set and return the result with its replay record."""
    return Referee(spec, players, on_deal).run()
