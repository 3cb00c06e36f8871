"""A Python bot on the SDK whose code raises answers with a ``DecisionError``: the referee
records an ``exception`` fault naming the error (its words made printable and short, as
public pages show them), and the traceback is in the bot's log, after the platform's marker
of the decision that raised. A real bot package, sandboxed, through the real referee."""

from __future__ import annotations

import re

from arena.players.player import BotRaised
from arena.players.stream import _move
from arena.players.wire import MAX_ERROR_MESSAGE, error_to_proto
from arena.proto import bot_pb2 as pb
from arena.sandbox import LOG_MARK
from arena.text import printable
from tests.referee.conftest import GAMES, run_match  # noqa: F401  (the fixture)

SENT = "bad hand <b>{n}</b>\x1b[2J " + "x" * 500  # what tests/hostile_bots/raises raises


def test_a_raising_bot_is_faulted_with_the_error_and_logs_its_traceback(run_match) -> None:  # noqa: F811
    run = run_match("raises", max_strikes=100)
    run.assert_completed_and_contained()
    faults = run.faults()
    assert [f.kind for f in faults] == ["exception"] * 2 * GAMES
    for fault, n in zip(faults, [2, 5] * GAMES, strict=True):
        message = printable(SENT.format(n=n)[:MAX_ERROR_MESSAGE], MAX_ERROR_MESSAGE)
        assert fault.reason == f"the bot raised ValueError: {message}"
        assert "\x1b" not in fault.reason and len(fault.reason) < 250
    # each traceback follows the marker of the decision that raised, before the next one
    chunks = run.log.split(LOG_MARK)
    raised = {f.decision for f in faults}
    for chunk in chunks[1:]:
        decision = int(re.search(r"decision (\d+) ", chunk)[1])
        has_traceback = "Traceback (most recent call last)" in chunk
        assert has_traceback == (decision in raised), chunk[:300]
        if has_traceback:
            assert "ValueError: bad hand <b>" in chunk


def test_the_referee_keeps_the_error_short_and_printable_whatever_the_bot_sends() -> None:
    hostile = pb.DecisionError(type="Bad\x1b[31mType" * 20, message="\u202e\n" + "y" * 5000)
    reason = _reason_of(hostile)
    assert reason.startswith("the bot raised Bad[31mType")  # the escape byte is gone
    assert "\x1b" not in reason and "\u202e" not in reason and "\n" not in reason
    assert len(reason) <= len("the bot raised : ") + 64 + 200
    assert _reason_of(pb.DecisionError()) == "the bot raised an error"


def test_the_sdk_sends_the_type_and_the_start_of_the_message() -> None:
    class Unprintable(Exception):
        def __str__(self) -> str:
            raise RuntimeError("no")

    sent = error_to_proto(ValueError("z" * 1000))
    assert sent.type == "ValueError" and sent.message == "z" * MAX_ERROR_MESSAGE
    assert error_to_proto(Unprintable()) == pb.DecisionError(type="Unprintable")


def _reason_of(error: pb.DecisionError) -> str:
    try:
        _move(pb.DecisionReply(id=1, error=error))
    except BotRaised as raised:
        return raised.reason
    raise AssertionError("no fault")
