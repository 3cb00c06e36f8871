"""Hostile and broken bots in whole matches: real packages (tests/hostile_bots/), a real
bwrap sandbox, the real referee, against three well-behaved house bots.

Every test checks that the match completed for the others, that the fault was recorded
with its reason (in ``result.faults``, ``record["faults"]`` and the decision entries), and
that no process of the bot survived the match (see ``MatchRun.assert_completed_and_contained``
in conftest.py). 4 games of 2 deals; entrant 0 is the hostile bot and makes 4 x 2 x 14 = 112
decisions unless it is forfeited.
"""

from __future__ import annotations

import json
import re
import socket
from pathlib import Path

import pytest

from arena.game import Deal, Observation, Ruleset, parse_card
from arena.referee import Clock
from arena.referee.moves import fallback
from arena.sandbox.limits import Limits, MiB
from tests.referee.conftest import FAST_CLOCK, HOSTILE_BOTS, POLICY, MatchRun
from tests.support import SAMPLE_BOTS, need_cgroups

pytestmark = pytest.mark.slow

DECISIONS = 4 * 2 * 14  # entrant 0's decisions in the match


def own_decisions(run: MatchRun, entrant: int = 0) -> list[tuple[int, int, dict]]:
    """(game, deal, entry) of every decision the referee asked ``entrant``, in order."""
    return [
        (game_index, deal["index"], entry)
        for game_index, game in enumerate(run.result.record["games"])
        for deal in game["deals"]
        for entry in deal["decisions"]
        if "id" in entry and game["seats"][entry["seat"]] == entrant
    ]


def allowances(run: MatchRun, entrant: int = 0) -> dict[int, float]:
    """Decision id -> the ms the referee allowed it (decision_ms plus what was left of the
    game's bank), recomputed from the record's timings."""
    clock = run.result.record["clock"]
    allowed = {}
    for game in run.result.record["games"]:
        bank = clock["bank_ms"]
        for deal in game["deals"]:
            for entry in deal["decisions"]:
                if "id" in entry and game["seats"][entry["seat"]] == entrant:
                    allowed[entry["id"]] = clock["decision_ms"] + bank
                    bank = max(0.0, bank - max(0.0, entry["ms"] - clock["decision_ms"]))
    return allowed


def assert_timeouts_waited_their_allowance(run: MatchRun) -> None:
    allowed = allowances(run)
    took = {entry["id"]: entry["ms"] for _, _, entry in own_decisions(run)}
    timeouts = [f.decision for f in run.faults() if f.kind == "timeout"]
    assert timeouts
    for decision in timeouts:
        assert took[decision] >= allowed[decision] - 1, (decision, took, allowed)


def replay_to(record: dict, decision_id: int) -> tuple[Observation, str, object]:
    """Replay the match record up to ``decision_id``: the acting seat's observation, the
    decision's kind, and the move the record says was made (a call, or a card's text)."""
    rules = Ruleset.from_dict(record["rules"])
    for game in record["games"]:
        for rec in game["deals"]:
            ids = [entry.get("id") for entry in rec["decisions"]]
            if decision_id not in ids:
                continue
            k = ids.index(decision_id)
            deal = Deal(rules, rec["seed"], rec["dealer"], rec["index"])
            call_order = [(deal.dealer + 1 + i) % 4 for i in range(4)]
            cards = [c for trick in rec["tricks"] for c in trick["cards"]]
            for seat in call_order[: min(k, 4)]:
                deal.call(seat, rec["calls"][seat])
            if k < 4:
                seat = call_order[k]
                return deal.observation(seat), "call", rec["calls"][seat]
            for card in cards[: k - 4]:
                deal.play(deal.to_act, parse_card(card))
            return deal.observation(deal.to_act), "play", cards[k - 4]
    raise AssertionError(f"decision {decision_id} is not in the record")


# --------------------------------------------------------------------------- time


def test_never_answers_times_out_then_forfeits(run_match) -> None:
    run = run_match("never_answers")
    run.assert_completed_and_contained()
    assert run.kinds() == ["timeout"] * 3 + ["forfeit"]
    timeouts, forfeit = run.faults()[:3], run.faults()[3]
    for fault in timeouts:
        assert fault.reason.startswith(f"no answer to decision {fault.decision} in time (waited ")
    assert forfeit.reason == "3 strikes (limit 3)"
    assert forfeit.decision == timeouts[-1].decision
    assert run.result.forfeited[0]
    asked = own_decisions(run)
    assert [e.get("fault") for _, _, e in asked] == [None, "timeout", "timeout", "timeout"]
    assert_timeouts_waited_their_allowance(run)  # the first one spent the whole bank
    assert allowances(run)[timeouts[0].decision] > FAST_CLOCK.decision_ms
    assert run.auto_decisions() == DECISIONS - 4


def test_a_late_answer_is_a_timeout_and_its_reply_is_dropped(run_match) -> None:
    run = run_match("answers_late")
    run.assert_completed_and_contained()
    # One timeout, and no stale_id for the late reply: the next decision found it waiting
    # ahead of its own answer and dropped it.
    assert run.kinds() == ["timeout"]
    assert not run.result.forfeited[0]
    assert "answering late" in run.log  # the late reply was really sent
    asked = own_decisions(run)
    assert len(asked) == DECISIONS
    game0 = [entry for g, _, entry in asked if g == 0]
    assert [e.get("fault") for e in game0] == [None] * (len(game0) - 1) + ["timeout"]
    assert run.faults()[0].decision == game0[-1]["id"]
    assert_timeouts_waited_their_allowance(run)
    # The next decision (the call opening game 1) was answered, and with the right id.
    assert asked[len(game0)][0] == 1 and "fault" not in asked[len(game0)][2]


# --------------------------------------------------------------------------- crashes


def test_crash_at_start_is_start_failed_and_forfeit(run_match) -> None:
    run = run_match("crashes_at_start")
    run.assert_completed_and_contained()
    assert run.kinds() == ["start_failed", "forfeit"]
    for fault in run.faults():
        assert fault.decision is None
        assert "exit status 1" in fault.reason
        assert "fatal: cannot load my opening book" in fault.reason
    assert run.result.forfeited[0]
    assert own_decisions(run) == []  # never asked anything
    assert run.auto_decisions() == DECISIONS


def test_crash_mid_game_is_a_crash_and_forfeit(run_match) -> None:
    run = run_match("crashes_mid_game")
    run.assert_completed_and_contained()
    assert run.kinds() == ["crash", "forfeit"]
    crash, forfeit = run.faults()
    asked = own_decisions(run)
    assert len(asked) == 5 and asked[4][2]["id"] == crash.decision == forfeit.decision
    assert asked[4][2]["fault"] == "crash"
    assert forfeit.reason.startswith("the bot died: ")
    assert "exit status 3" in crash.reason
    assert "crashing on decision 5" in crash.reason  # the log's last line
    assert run.auto_decisions() == DECISIONS - 5


# --------------------------------------------------------------------------- bad answers


def test_illegal_cards_are_struck_and_replaced_by_the_fallback(run_match) -> None:
    run = run_match("illegal_card")
    run.assert_completed_and_contained()  # includes: the record re-validates
    assert run.kinds() == ["illegal_card"] * 3 + ["forfeit"]
    for fault in run.faults()[:3]:
        claimed = re.fullmatch(r"(\w\w) is not legal here \(legal: [\w ]+\)", fault.reason)
        assert claimed, fault.reason
        obs, kind, played = replay_to(run.result.record, fault.decision)
        assert kind == "play"
        assert played == str(fallback("play", obs)) != claimed[1]
        assert parse_card(claimed[1]) not in obs.legal_cards
    assert run.faults()[3].reason == "3 strikes (limit 3)"


def test_illegal_calls_are_struck_and_replaced_by_the_minimum(run_match) -> None:
    run = run_match("illegal_call")
    run.assert_completed_and_contained()
    assert run.kinds() == ["illegal_call"] * 3 + ["forfeit"]
    for fault in run.faults()[:3]:
        assert fault.reason == "call 14 outside 2-13"
        obs, kind, played = replay_to(run.result.record, fault.decision)
        assert kind == "call" and played == obs.rules.min_call == 2
    # The three calls opened three different deals; the cards in between were fine.
    assert len({(f.game, f.deal) for f in run.faults()[:3]}) == 3


def test_garbage_cards_are_malformed_and_the_reasons_stay_short(run_match) -> None:
    run = run_match("garbage_card")
    run.assert_completed_and_contained()
    assert run.kinds() == ["malformed"] * 3 + ["forfeit"]
    reasons = [f.reason for f in run.faults()[:3]]
    assert reasons[0].startswith("not a card: 'ZZ'")
    assert reasons[1].startswith("not a card: ''")
    assert reasons[2].startswith("not a card: 'QQQQ")  # 50 kB of it, cut short:
    assert all(len(r) <= 200 for r in reasons)
    assert len(json.dumps(run.result.record["faults"])) < 2000


def test_a_mismatched_decision_id_is_stale(run_match) -> None:
    run = run_match("stale_id")
    run.assert_completed_and_contained()
    assert run.kinds() == ["stale_id"] * 3 + ["forfeit"]
    for fault in run.faults()[:3]:
        expected = f"reply echoes decision id {fault.decision + 1000}, expected {fault.decision}"
        assert fault.reason == expected


# --------------------------------------------------------------------------- escapes


def test_no_network_even_to_the_hosts_loopback(run_match, copy_bot) -> None:
    bot = copy_bot("net_connect")
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        port = listener.getsockname()[1]
        (bot / "target.txt").write_text(f"{port}\n")
        (bot / "target.txt").chmod(0o644)
        run = run_match(bot)
        listener.setblocking(False)
        with pytest.raises(BlockingIOError):  # nothing ever reached the accept queue
            listener.accept()
    run.assert_completed_and_contained()
    assert run.result.faults == []  # it played every decision, and never connected
    log = run.log
    loopback = re.findall(rf"connect 127\.0\.0\.1:{port} -> (\w+)", log)
    public = re.findall(r"connect 1\.1\.1\.1:53 -> (\w+)", log)
    assert len(loopback) == len(public) == DECISIONS  # it tried in every decision
    assert set(loopback) == {"ECONNREFUSED"}  # its loopback is its own, empty
    assert set(public) <= {"ENETUNREACH", "EHOSTUNREACH", "timeout"}


def test_a_symlink_in_place_of_its_socket_is_never_followed(
    run_match, copy_bot, open_area: Path
) -> None:
    bot = copy_bot("symlink_socket")
    victim = open_area / "postgres.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
        listener.bind(str(victim))
        victim.chmod(0o777)
        listener.listen(16)
        (bot / "target.txt").write_text(f"{victim}\n")
        (bot / "target.txt").chmod(0o644)
        run = run_match(bot)
        listener.setblocking(False)
        with pytest.raises(BlockingIOError):  # the platform never connected to it
            listener.accept()
    run.assert_completed_and_contained()
    assert run.kinds() == ["start_failed", "forfeit"]
    assert "refused to connect: the bot's socket path bot.sock is a symlink" in (
        run.faults()[0].reason
    )
    assert f"planted a symlink to {victim}" in run.log


def test_no_reading_outside_its_directory(
    run_match, copy_bot, open_area: Path, tmp_path: Path
) -> None:
    secret = "TOP-SECRET-7f3c9e"
    platform = open_area / "platform"
    platform.mkdir(mode=0o755)
    (platform / "arena.sqlite").write_text(f"users: admin password {secret}\n")
    other = open_area / "other-bot"
    other.mkdir(mode=0o755)
    (other / "bot.py").write_text(f"# winning strategy {secret}\n")
    (other / "bot.toml").write_text(f'name = "other"  # {secret}\n')
    (tmp_path / "arena.sqlite").write_text(f"{secret}\n")
    for path in (platform / "arena.sqlite", other / "bot.py", other / "bot.toml"):
        path.chmod(0o644)  # readable by any uid: only the sandbox keeps the bot out
    bot = copy_bot("read_outside")
    targets = [
        platform / "arena.sqlite",
        platform,
        other / "bot.py",
        other,
        open_area,
        tmp_path / "arena.sqlite",
        bot / "bot.py",  # even its own files, by their host path
        HOSTILE_BOTS / "read_outside" / "bot.py",
        SAMPLE_BOTS / "random" / "bot.py",
        Path(__file__),
        Path("/proc/1/root") / str(platform / "arena.sqlite").lstrip("/"),
        "../platform/arena.sqlite",
        "/etc/shadow",
        "/etc/passwd",
    ]
    (bot / "paths.txt").write_text("".join(f"{t}\n" for t in targets))
    (bot / "paths.txt").chmod(0o644)
    run = run_match(bot)
    run.assert_completed_and_contained()
    # Any successful read would have been answered as the card: a malformed fault.
    assert run.result.faults == []
    log = run.log
    assert secret not in log
    assert secret not in json.dumps(run.result.record)
    assert "GOT" not in log
    for target in targets:
        tries = re.findall(rf"read {re.escape(str(target))} -> (\w+)", log)
        assert len(tries) == DECISIONS, (target, tries[:3])
        assert set(tries) <= {"ENOENT", "EACCES"}, (target, set(tries))


# --------------------------------------------------------------------------- resources


def test_fork_bomb_is_contained_and_cleaned_up(run_match) -> None:
    run = run_match("fork_bomb", limits=Limits(max_processes=64))
    run.assert_completed_and_contained()  # includes: no process left behind
    kinds = run.kinds()
    assert kinds[-1] == "forfeit" and run.result.forfeited[0]
    assert set(kinds[:-1]) <= {"timeout", "crash"} and kinds[:-1]
    # The process limit held: a fork (or, in a forked gRPC process, a thread) was refused.
    assert "Resource temporarily unavailable" in run.log


def test_memory_hog_gets_memory_error_and_is_struck(run_match) -> None:
    run = run_match("memory_hog", limits=Limits(memory_bytes=256 * MiB))
    run.assert_completed_and_contained()
    kinds = run.kinds()
    assert kinds[-1] == "forfeit" and run.result.forfeited[0]
    assert set(kinds[:-1]) <= {"exception", "crash", "timeout"} and kinds[:-1]
    held = [int(mib) for mib in re.findall(r"^holding (\d+) MiB$", run.log, re.M)]
    assert held and max(held) <= 256  # its own report: stopped below the cap...
    assert "MemoryError at" in run.log  # ...by the limit, not by the 4 GiB backstop
    if kinds[0] == "exception":  # the SDK caught it and said so
        assert run.faults()[0].reason.startswith("the bot raised MemoryError")


def test_shared_memory_beyond_the_cap_kills_only_the_bot(run_match) -> None:
    """RLIMIT_DATA does not count MAP_SHARED memory: the bot's memory cgroup does, and its
    OOM kill is the crash's stated reason. The decision clock is a minute, so that only the
    kill can end the decision on however loaded a host (a 400 ms clock once ran out first:
    the seat was timed out instead of crashing)."""
    need_cgroups(POLICY)
    patient = Clock(decision_ms=60_000, bank_ms=300, startup_ms=10_000)
    run = run_match("shared_memory_hog", clock=patient, limits=Limits(memory_bytes=256 * MiB))
    run.assert_completed_and_contained()  # the other three seats played every game
    assert run.kinds() == ["crash", "forfeit"] and run.result.forfeited[0], run.faults()
    crash = run.faults()[0]
    assert "killed by the memory limit (256 MiB)" in crash.reason, crash.reason
    touched = {"parent": 0, "child": 0}
    for role, mib in re.findall(r"^(parent|child) touched (\d+) MiB$", run.log, re.M):
        touched[role] = max(touched[role], int(mib))
    assert 64 <= touched["parent"] + touched["child"] <= 256, touched  # its own report
    assert "held 1 GiB" not in run.log


def test_cpu_spinner_is_killed_by_the_cpu_limit(run_match) -> None:
    # Strikes never forfeit it here: only the CPU limit can stop the spinning process. Each
    # game starts a fresh process, so the limit must be reached within one game's timeouts
    # (26 x 300 ms of wall time here) even on a loaded machine.
    slow = Clock(decision_ms=300, bank_ms=300, startup_ms=10_000)
    run = run_match("cpu_spin", clock=slow, limits=Limits(cpu_seconds=1), max_strikes=1000)
    run.assert_completed_and_contained()
    kinds = run.kinds()
    assert kinds[-2:] == ["crash", "forfeit"]
    assert set(kinds[:-2]) == {"timeout"}
    crash = run.faults()[-2]
    assert re.search(r"exit status (152|137)\b", crash.reason), crash.reason  # SIGXCPU/KILL
    assert_timeouts_waited_their_allowance(run)
    assert run.auto_decisions() > 0


def test_stderr_flood_is_capped_and_never_blocks_the_bot(run_match) -> None:
    limits = Limits(log_bytes=256 * 1024)
    run = run_match("stderr_flood", limits=limits)
    run.assert_completed_and_contained()
    assert run.result.faults == []
    size = run.player.log_path.stat().st_size
    # One cap for the whole match: the later games' processes add only arena's notes.
    assert limits.log_bytes <= size <= limits.log_bytes + 200 * 4
    tail = run.log[-200:]
    assert "log truncated" in tail
    dropped = sum(map(int, re.findall(r"\[arena: (\d+) bytes discarded\]", run.log)))
    assert dropped + limits.log_bytes >= DECISIONS * MiB  # it wrote 1 MiB per decision


def test_control_a_well_behaved_process_bot_has_no_faults(run_match) -> None:
    """The same harness and clock with sample_bots/random: every fault above is the bot's."""
    run = run_match(SAMPLE_BOTS / "random")
    run.assert_completed_and_contained()
    assert run.result.faults == []
    assert len(own_decisions(run)) == DECISIONS
