"""A stop request is raised at once, after the current database write, or not at all."""

from __future__ import annotations

import pytest

from arena.tournaments.stopping import Stopped, request_stop, shielded, stoppable


def test_a_stop_while_playing_is_raised_at_once():
    with pytest.raises(Stopped), stoppable():
        request_stop()
        pytest.fail("not stopped")


def test_a_stop_during_a_write_waits_for_its_end():
    steps = []
    with pytest.raises(Stopped), stoppable():
        with shielded():
            request_stop()
            steps.append("write finished")
        steps.append("after the write")
    assert steps == ["write finished"]


def test_nested_writes_raise_once_at_the_outermost_end():
    steps = []
    with pytest.raises(Stopped), stoppable(), shielded():
        with shielded():
            request_stop()
        steps.append("outer write finished")
    assert steps == ["outer write finished"]


def test_no_stop_outside_a_match_and_none_left_over():
    request_stop()  # not playing: ignored
    with shielded():
        request_stop()
    with stoppable(), shielded():  # a fresh match starts with no stop pending
        pass


def test_a_stop_from_another_thread_waits_for_the_next_checkpoint():
    import threading

    from arena.tournaments.stopping import checkpoint, stop_soon

    steps = []
    with pytest.raises(Stopped), stoppable():
        checkpoint()  # nothing asked yet
        steps.append("decision 1")
        watcher = threading.Thread(target=stop_soon)
        watcher.start()
        watcher.join()
        steps.append("decision 1 still finishes")
        with shielded():
            checkpoint()  # never inside a write
            steps.append("write")
        checkpoint()
        steps.append("decision 2")
    assert steps == ["decision 1", "decision 1 still finishes", "write"]


def test_a_stop_marked_between_matches_reaches_no_match():
    from arena.tournaments.stopping import checkpoint, stop_soon

    stop_soon()  # no match is being played: nothing to stop
    with stoppable():
        checkpoint()
    with stoppable():
        stop_soon()
    with stoppable():  # the last match's stop is not carried into the next
        checkpoint()
