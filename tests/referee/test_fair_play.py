"""Fair play, written as the attacks: real hostile bot packages (tests/hostile_bots/)
in the real bwrap sandbox, played through the real referee against three house bots, and
judged by the bot's OWN report in its log.

- ``seed_guess`` recomputes deals with the platform's own ``arena.game`` from every number
  it is given (the match id, decision ids, the game index, small seeds, the clock) and
  reports how many hidden hands it predicted, each checked against the cards really played.
- ``remembers`` stores every hand and card it sees in memory, in every writable place and in
  a detached keeper process, and at the start of every game reports what it found of an
  earlier game.

Each attack has a control that proves the bot's method works when the platform is unsafe:
a knowable seed (7) lets ``seed_guess`` predict every hand, and a player that keeps one
process for the whole match lets ``remembers`` carry the hands from game to game.
"""

from __future__ import annotations

import hashlib
import re
import threading
from pathlib import Path

import pytest

from arena.bots.factory import house_player
from arena.bots.package import load_package
from arena.bots.process_player import ProcessPlayer
from arena.players.player import Event, MatchInfo, Move, Request
from arena.referee import MatchSpec, play_match, secret_seed
from tests.referee.conftest import (
    FAST_CLOCK,
    GAMES,
    HOSTILE_BOTS,
    RULES,
    MatchRun,
    copy_bot_dir,
    live_pids,
    sandbox_leftovers,
)

pytestmark = pytest.mark.slow

DEALS = RULES.deals_per_game
HIDDEN_PER_GAME = 3 * DEALS  # the three other hands of every deal
DECISIONS = GAMES * DEALS * 14  # entrant 0's decisions in the match (1 call, 13 cards)


def match_ids(log: str) -> list[str]:
    return re.findall(r"^HELLO match_id=(\S+)", log, re.M)


def predictions(log: str) -> dict[int, tuple[int, int]]:
    """Game -> (hidden hands predicted and confirmed by the cards played, hands tried)."""
    found = re.findall(r"^PREDICTED (\d+)/(\d+) hidden hands in game (\d+)$", log, re.M)
    return {int(g): (int(n), int(m)) for n, m, g in found}  # the last line of each game


def game_reports(log: str) -> tuple[dict[int, str], dict[int, str]]:
    """The remembering bot's report at the start of each game: (nothing, remembered), each
    game -> the line."""
    nothing = {
        int(g): line for line, g in re.findall(r"^(NOTHING REMEMBERED game (\d+).*)$", log, re.M)
    }
    remembered = {int(g): line for line, g in re.findall(r"^(REMEMBERED game (\d+).*)$", log, re.M)}
    return nothing, remembered


def in_game_recall(log: str) -> dict[int, set[str]]:
    """Game -> the channels where the bot found its own records of the game's first deal."""
    found = re.findall(r"^IN-GAME RECALL game (\d+) deal 1 via (.*)$", log, re.M)
    return {int(g): set(filter(None, channels.split(","))) for g, channels in found}


# --------------------------------------------------------------------------- the seed


def test_seed_guessing_bot_predicts_no_hidden_hand_of_a_secret_seed(run_match) -> None:
    seed = secret_seed()  # what tournaments, validation matches and `arena play` now use
    run = run_match("seed_guess", seed=seed)
    run.assert_completed_and_contained()
    assert run.result.faults == []
    log = run.log
    assert run.result.record["seed"] == seed  # stored with the match...
    ids = match_ids(log)  # ...but in nothing the bot received
    assert len(ids) == GAMES and len(set(ids)) == GAMES, ids  # a fresh id every game
    for match_id in ids:
        assert str(seed) not in match_id and f"{seed:x}" not in match_id
    assert len(re.findall(r"^CANDIDATES \d+ seeds", log, re.M)) == GAMES  # it really tried
    assert predictions(log) == {g: (0, HIDDEN_PER_GAME) for g in range(GAMES)}, log[-2000:]
    assert re.findall(r"deal \d+: PREDICTED (\d+)/3 hidden hands", log) == ["0"] * (GAMES * DEALS)


def test_control_seed_guessing_bot_predicts_every_hand_of_a_knowable_seed(run_match) -> None:
    """The same bot, the same harness, with the deal seed 7 that any bot can guess: it names
    every hidden hand of every deal, so the test above would catch a guessable seed."""
    run = run_match("seed_guess", seed=7)
    run.assert_completed_and_contained()
    assert run.result.faults == []
    log = run.log
    assert predictions(log) == {g: (HIDDEN_PER_GAME, HIDDEN_PER_GAME) for g in range(GAMES)}
    assert "(small seed 7 as the game seed)" in log


def test_control_seed_guessing_bot_predicts_the_old_tournament_table_seeds(run_match) -> None:
    """Tournaments used to seed table i's deals from their public seed (``_digest("table",
    seed, i) >> 1`` in arena.tournaments.schedule); the bot knows that formula, so a match
    dealt that way is fully predicted. Now every match gets a secret seed instead (see
    tests/cli/test_fair_play_cli.py for a whole tournament)."""
    old_seed = int.from_bytes(hashlib.sha256(b"callbreak-arena/table/3/2").digest()[:8]) >> 1
    run = run_match("seed_guess", seed=old_seed)
    run.assert_completed_and_contained()
    log = run.log
    assert predictions(log) == {g: (HIDDEN_PER_GAME, HIDDEN_PER_GAME) for g in range(GAMES)}
    assert "(old tournament 3 table 2 as the game seed)" in log


# --------------------------------------------------------------------------- memory


def test_remembering_bot_remembers_nothing_across_games(run_match) -> None:
    run = run_match("remembers")
    run.assert_completed_and_contained()  # includes: its detached keeper did not survive
    assert run.result.faults == []
    log = run.log
    assert len(set(match_ids(log))) == GAMES
    nothing, remembered = game_reports(log)
    assert remembered == {}, remembered
    assert sorted(nothing) == list(range(GAMES)), log[-3000:]  # it played all 4 games
    # Within a game the same channels work: memory, its /tmp and /dev/shm, the keeper.
    recall = in_game_recall(log)
    assert sorted(recall) == list(range(GAMES)), log[-3000:]
    for g, channels in recall.items():
        assert {"memory", "/tmp", "/dev/shm", "$HOME", "$TMPDIR", "keeper"} <= channels, (g, log)
    # ...and it tried the places it may not write.
    assert re.search(r"^WROTE game 0 deal 0: .*cwd E(ROFS|ACCES)", log, re.M), log[-3000:]


class NotRestarted:
    """The platform before the fix: one bot process for the whole match (each game opens a
    new stream to the same process). Only for the control below."""

    def __init__(self, inner: ProcessPlayer) -> None:
        self.inner = inner
        self.name = inner.name
        self.sandbox = getattr(inner, "sandbox", "bwrap")
        self.started = False

    def start(self, info: MatchInfo, timeout_s: float) -> None:
        if not self.started:
            self.started = True
            self.inner.start(info, timeout_s)
        else:
            self.inner._conn.start(info, timeout_s)

    def decide(self, request: Request, timeout_s: float) -> Move:
        return self.inner.decide(request, timeout_s)

    def notify(self, event: Event) -> None:
        self.inner.notify(event)

    def cpu_seconds(self) -> float | None:
        return self.inner.cpu_seconds()

    def close(self) -> None:  # the stream only; the process lives on
        if self.inner._conn is not None:
            self.inner._conn.close()


def test_control_remembering_bot_remembers_when_its_process_is_kept(
    tmp_path: Path, sandbox_policy
) -> None:
    """With one process for the whole match the bot finds game 1's hands in games 2-4, in
    memory, in its /tmp and in its keeper: the test above would catch a kept process."""
    bot_dir = copy_bot_dir(HOSTILE_BOTS / "remembers", tmp_path / "bots")
    inner = ProcessPlayer(
        load_package(bot_dir), "kept", policy=sandbox_policy, log_dir=tmp_path / "logs"
    )
    players = [NotRestarted(inner), *(house_player("random", seed=s) for s in (1, 2, 3))]
    spec = MatchSpec("kept", rules=RULES, seed=7, games=GAMES, clock=FAST_CLOCK)
    before = live_pids()
    try:
        result = play_match(spec, players)
    finally:
        inner.close()
    run = MatchRun(result, bot_dir, inner, sandbox_leftovers(bot_dir, before))
    run.assert_completed_and_contained()
    assert result.faults == []
    nothing, remembered = game_reports(run.log)
    assert sorted(nothing) == [0]
    assert sorted(remembered) == list(range(1, GAMES)), run.log[-3000:]
    for line in remembered.values():
        channels = set(re.search(r" via (.*?): game \d", line)[1].split(","))
        assert {"memory", "/tmp", "/dev/shm", "keeper"} <= channels, line
        assert "game 0 deal 0 seat 0 hand" in line  # what it held in game 1


# --------------------------------------------------------------------------- floods


class PeakRss:
    """The peak resident memory of this (the platform's) process while in the block."""

    def __init__(self) -> None:
        self.start = self.peak = self._rss()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    @staticmethod
    def _rss() -> int:
        status = Path("/proc/self/status").read_text()
        return int(re.search(r"^VmRSS:\s+(\d+) kB", status, re.M)[1]) * 1024

    def _poll(self) -> None:
        while not self._stop.wait(0.01):
            self.peak = max(self.peak, self._rss())

    def __enter__(self) -> PeakRss:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self._rss())


def test_a_sustained_flood_of_unasked_replies_is_never_buffered(run_match) -> None:
    """With strikes that never forfeit it, the flooding bot streams 60 KiB replies for the
    whole match (a fresh process every game): each decision finds the one pending message
    and strikes it, HTTP/2 flow control holds the rest back in the bot, and the platform
    does not grow."""
    with PeakRss() as rss:
        run = run_match("flood_replies", max_strikes=10_000)
    run.assert_completed_and_contained()
    kinds = run.kinds()
    assert "forfeit" not in kinds and not run.result.forfeited[0]
    assert set(kinds) <= {"stale_id", "timeout"} and kinds.count("stale_id") >= DECISIONS // 2
    growth = rss.peak - rss.start
    assert growth < 64 * 1024 * 1024, f"the platform grew by {growth / 2**20:.0f} MiB"
    # What the bot got out in each game: about one message per decision (28), not thousands.
    sent = [int(n) for n in re.findall(r"^FLOODED (\d+) messages", run.log, re.M)]
    assert sent and max(sent) <= DECISIONS // GAMES + 8, run.log[-2000:]
