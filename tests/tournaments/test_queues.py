"""Which queue a job goes to: a match to the queue whose workers have its bots' toolchains,
a validation with a build step to its toolchain's build queue (a long compile never holds a
worker that matches wait for, nor reaches one without the compiler)."""

from __future__ import annotations

import pytest

from arena.tournaments.dispatch import queue_for, validation_queue

PY = {"name": "py", "command": ["python3", "bot.py"]}


@pytest.mark.parametrize(
    ("runtime", "queue"),
    [("", "arena"), ("python3.11", "arena"), ("node20", "arena.node"), ("c", "arena"),
     ("go", "arena"), ("rust", "arena"), ("cpp", "arena.cpp"), ("java", "arena.java")],
)  # fmt: skip
def test_a_match_goes_where_its_bots_toolchains_are(runtime, queue):
    manifest = {**PY, "runtime": runtime}
    assert queue_for([PY, manifest]) == queue
    assert validation_queue(manifest) == queue  # nothing to build: validated where it plays
    built = validation_queue({**manifest, "build": ["make"]})
    family = runtime.rstrip("0123456789.") or ""
    assert built == (f"arena.build.{family}" if family else "arena.build")
