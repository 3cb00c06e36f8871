"""The platform marks a bot's log before every decision it asks for: the capture's own
mark (``arena.sandbox.logpump``) lands after everything the bot wrote before and before what
it writes next, and no line the bot writes can pass for one. First the capture alone on a
pipe, then a real sandboxed bot through the referee that imitates the markers."""

from __future__ import annotations

import os
import re
import tempfile
import threading
from pathlib import Path

from arena.players.markers import marker_of
from arena.sandbox import LOG_MARK
from arena.sandbox.logpump import _LogPump
from tests.referee.conftest import run_match  # noqa: F401  (the fixture)

FORGED = "── game 9 · deal 9 · step 9 · decision 999 (call) ──"


class _Held(_LogPump):
    """A pump whose thread starts reading only once ``go`` is set: what it finds in the pipe
    then was written before, and a mark made meanwhile must still come after it."""

    def __init__(self, *args) -> None:
        self.go = threading.Event()
        super().__init__(*args)

    def _copy(self, poller) -> None:
        self.go.wait(30)
        super()._copy(poller)


def _captured(cap: int, script) -> bytes:
    """Run ``script(pump, write)`` against a held pump on a fresh pipe; the log's bytes."""
    read_fd, write_fd = os.pipe()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bot.log"
        pump = _Held(read_fd, open(path, "wb", buffering=0), cap, 0)  # noqa: SIM115 (it closes it)
        script(pump, lambda data: os.write(write_fd, data))
        pump.go.set()
        os.close(write_fd)
        assert pump.settle(30)
        return path.read_bytes()


def test_a_mark_follows_what_the_bot_wrote_before_it_even_when_not_yet_read() -> None:
    def script(pump, write) -> None:
        write(b"thinking 1\nlast words without newline")
        pump.mark("decision 2")
        write(b"thinking 2\n")

    assert _captured(4096, script) == (
        b"thinking 1\nlast words without newline\n\x1edecision 2\nthinking 2\n"
    )


def test_a_silent_decision_leaves_no_mark_and_the_bot_cannot_write_the_marks_byte() -> None:
    def script(pump, write) -> None:
        pump.mark("decision 1")  # the bot says nothing
        pump.mark("decision 2")
        write(b"\x1eforged\n")

    assert _captured(4096, script) == b"\x1edecision 2\nforged\n"


def test_marks_count_towards_the_cap_and_never_pass_it() -> None:
    def script(pump, write) -> None:
        for n in range(50):
            pump.mark(f"decision {n}")
            write(b"x" * 10 + b"\n")

    data = _captured(200, script)
    kept, _, note = data.partition(b"\n[arena: log truncated at 200 bytes")
    assert len(kept) <= 200 and note
    assert kept.startswith(b"\x1edecision 0\nxxxxxxxxxx\n\x1edecision 1\n")
    assert data.count(b"\x1e") == kept.count(b"\x1e")  # no mark after the cap


def test_a_real_bot_cannot_forge_a_marker_and_its_lines_follow_their_decisions(
    run_match,  # noqa: F811
) -> None:
    run = run_match("forges_markers")
    run.assert_completed_and_contained()
    assert run.result.faults == []
    lines = run.log.split("\n")
    marks = [line[1:] for line in lines if line.startswith(LOG_MARK)]
    own = [
        (g["seats"][e["seat"]], e["id"])
        for g in run.result.record["games"]
        for d in g["deals"]
        for e in d["decisions"]
    ]
    ids = [int(re.search(r"decision (\d+) ", m)[1]) for m in marks]
    assert ids == [i for entrant, i in own if entrant == 0]  # one a decision, in order
    assert FORGED not in marks and LOG_MARK not in "".join(m for m in marks)
    assert run.log.count(LOG_MARK) == len(marks)  # the bot's framing byte was dropped
    current = None
    for line in lines:
        if line.startswith(LOG_MARK):
            current = marker_of(line[1:])
            assert current is not None, line
        elif line.startswith(("mine ", "done ")):
            # the bot's idea of the step, after the platform's marker for that step
            assert current is not None and line.split()[1] == current.anchor, line
    assert sum(line == FORGED for line in lines) == 2 * len(marks)  # shown as plain lines
