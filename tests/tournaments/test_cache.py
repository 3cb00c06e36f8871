"""The read models' cache under a crowd: one thread builds a table, the others get the
version before it meanwhile (or wait for the build when there is none), never a build each."""

from __future__ import annotations

import threading
import time

from sqlalchemy import update

from arena.store import Database, Match
from arena.tournaments.cache import VersionedCache
from tests.services.test_executor import house_only, tournament

WAIT_S = 60  # generous: a loaded machine, never a measure


class SlowBuild:
    """A build that says when it started and finishes only when released."""

    def __init__(self, value: str) -> None:
        self.value, self.started, self.release = value, threading.Event(), threading.Event()

    def __call__(self) -> str:
        self.started.set()
        assert self.release.wait(WAIT_S)
        return self.value


def ask(db: Database, cache: VersionedCache, build, out: list) -> None:
    with db.session(read_only=True) as s:
        out.append(cache.get(s, "standings", None, build))


def one_more_result(db: Database, tid: int) -> None:
    with db.session() as s:
        match = s.query(Match).filter_by(tournament_id=tid, status="pending").first()
        s.execute(update(Match).where(Match.id == match.id).values(status="done"))


def never(*_args) -> str:
    raise AssertionError("a second build of the same table")


def test_a_crowd_waits_for_the_one_build_when_nothing_older_is_kept(db, store_runtime) -> None:
    cache, slow, got = VersionedCache(), SlowBuild("fresh"), []
    builder = threading.Thread(target=ask, args=(db, cache, slow, got))
    builder.start()
    assert slow.started.wait(WAIT_S)
    crowd = [threading.Thread(target=ask, args=(db, cache, never, got)) for _ in range(3)]
    for reader in crowd:
        reader.start()
    time.sleep(0.5)  # so that they ask while it builds (were they late, they find it built)
    slow.release.set()
    for thread in [builder, *crowd]:
        thread.join(WAIT_S)
    assert got == ["fresh"] * 4


def test_while_a_newer_table_is_built_the_others_get_the_one_before(db, store_runtime) -> None:
    tid = tournament(db, store_runtime, house_only(db, store_runtime), tables=2)
    cache, got = VersionedCache(), []
    ask(db, cache, lambda: "before", got)
    one_more_result(db, tid)
    slow = SlowBuild("after")
    builder = threading.Thread(target=ask, args=(db, cache, slow, got))
    builder.start()
    assert slow.started.wait(WAIT_S)
    ask(db, cache, never, got)  # at once, without building: the previous version
    assert got == ["before", "before"]
    slow.release.set()
    builder.join(WAIT_S)
    ask(db, cache, never, got)  # built now, and kept
    assert got == ["before", "before", "after", "after"]


def test_a_failed_build_is_not_kept_and_the_waiting_build_for_themselves(db) -> None:
    cache, got = VersionedCache(), []
    started, release = threading.Event(), threading.Event()

    def failing() -> str:
        started.set()
        assert release.wait(WAIT_S)
        raise RuntimeError("the database went away")

    def failed() -> None:
        try:
            ask(db, cache, failing, got)
        except RuntimeError:
            got.append("failed")

    builder = threading.Thread(target=failed)
    builder.start()
    assert started.wait(WAIT_S)
    waiting = threading.Thread(target=ask, args=(db, cache, lambda: "own", got))
    waiting.start()
    release.set()
    for thread in (builder, waiting):
        thread.join(WAIT_S)
    assert sorted(got) == ["failed", "own"]
    ask(db, cache, lambda: "next", got)  # the failure left nothing behind
    assert got[-1] == "own"  # the waiting thread's own build was kept
